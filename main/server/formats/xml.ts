import { Readable } from 'node:stream';
import { isPublishedProperty, publishedEntities, untagTypedValue, type EntityObject } from './columns.js';

export interface XmlOptions {
  /** Name of the root element; `entities` by default. Must be an NCName. */
  root?: string;
}

const XSI_NAMESPACE = 'http://www.w3.org/2001/XMLSchema-instance';

/** Characters XML 1.0 does not allow (lone surrogates included, thanks to the `u` flag). */
const INVALID_XML_CHARS = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** NCName: an XML 1.0 (5th ed.) Name without colons. */
const NCNAME =
  /^[A-Z_a-z\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u02FF\u0370-\u037D\u037F-\u1FFF\u200C-\u200D\u2070-\u218F\u2C00-\u2FEF\u3001-\uD7FF\uF900-\uFDCF\uFDF0-\uFFFD\u{10000}-\u{EFFFF}][-.0-9\u00B7\u0300-\u036F\u203F-\u2040A-Z_a-z\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u02FF\u0370-\u037D\u037F-\u1FFF\u200C-\u200D\u2070-\u218F\u2C00-\u2FEF\u3001-\uD7FF\uF900-\uFDCF\uFDF0-\uFFFD\u{10000}-\u{EFFFF}]*$/u;

/** Removes the characters XML 1.0 does not allow. */
export function stripInvalidXmlChars(s: string): string {
  return s.replace(INVALID_XML_CHARS, '');
}

/**
 * Whether `name` can be used as an element name: an NCName that does not start
 * with the reserved `xml` (in any case).
 */
export function isXmlElementName(name: string): boolean {
  return NCNAME.test(name) && !/^xml/i.test(name);
}

/** Escapes element text (CR as a reference so that it survives line-end normalisation). */
export function escapeXmlText(s: string): string {
  return stripInvalidXmlChars(s).replace(/[&<>\r]/g, (c) => {
    switch (c) {
      case '&':
        return '&amp;';
      case '<':
        return '&lt;';
      case '>':
        return '&gt;';
      default:
        return '&#13;';
    }
  });
}

/** Escapes a double-quoted attribute value (whitespace as references so it survives normalisation). */
export function escapeXmlAttribute(s: string): string {
  return stripInvalidXmlChars(s).replace(/[&<>"\t\n\r]/g, (c) => {
    switch (c) {
      case '&':
        return '&amp;';
      case '<':
        return '&lt;';
      case '>':
        return '&gt;';
      case '"':
        return '&quot;';
      case '\t':
        return '&#9;';
      case '\n':
        return '&#10;';
      default:
        return '&#13;';
    }
  });
}

/** Start and end tags for a property: `<name>` or, for names that are no XML name, `<property name="...">`. */
function tags(name: string): [open: string, close: string] {
  return isXmlElementName(name)
    ? [`<${name}`, `</${name}>`]
    : [`<property name="${escapeXmlAttribute(name)}"`, '</property>'];
}

/** A property: arrays become repeated elements of the property's name. */
function writeProperty(out: string[], name: string, value: unknown, indent: string): void {
  if (value === undefined) return;
  if (Array.isArray(value)) {
    for (const item of value as unknown[]) writeElement(out, name, item, indent);
  } else {
    writeElement(out, name, value, indent);
  }
}

/**
 * One element: null is `xsi:nil`, objects hold one child per property, an array
 * nested in an array becomes an element holding `<item>` children.
 */
function writeElement(out: string[], name: string, value: unknown, indent: string): void {
  const [open, close] = tags(name);
  if (value === null || value === undefined) {
    out.push(`${indent}${open} xsi:nil="true"/>\n`);
  } else if (Array.isArray(value)) {
    if (value.length === 0) {
      out.push(`${indent}${open}/>\n`);
      return;
    }
    out.push(`${indent}${open}>\n`);
    for (const item of value as unknown[]) writeElement(out, 'item', item, `${indent}  `);
    out.push(`${indent}${close}\n`);
  } else if (typeof value === 'object') {
    const entries = Object.entries(value);
    if (entries.length === 0) {
      out.push(`${indent}${open}/>\n`);
      return;
    }
    out.push(`${indent}${open}>\n`);
    for (const [key, child] of entries) writeProperty(out, key, child, `${indent}  `);
    out.push(`${indent}${close}\n`);
  } else {
    const text = typeof value === 'string' ? untagTypedValue(value) : String(value);
    out.push(`${indent}${open}>${escapeXmlText(text)}${close}\n`);
  }
}

/** One `<entity>` element: `_id` and the properties not starting with `_`. */
export function entityXml(entity: EntityObject, indent = '  '): string {
  const out: string[] = [`${indent}<entity>\n`];
  for (const [key, value] of Object.entries(entity)) {
    if (isPublishedProperty(key)) writeProperty(out, key, value, `${indent}  `);
  }
  out.push(`${indent}</entity>\n`);
  return out.join('');
}

const CHUNK_SIZE = 64 * 1024;

/**
 * The non-deleted entities of `pages` as an XML document: the root element
 * (declaring the `xsi` namespace) holds one `<entity>` per entity. Pages are
 * pulled lazily as the stream is read.
 */
export function xmlReadable(pages: Iterable<readonly string[]>, options: XmlOptions = {}): Readable {
  const root = options.root ?? 'entities';
  if (!isXmlElementName(root)) {
    throw new TypeError(`invalid XML root element name ${JSON.stringify(root)}`);
  }

  function* chunks(): Generator<string, void, undefined> {
    let chunk = `<?xml version="1.0" encoding="UTF-8"?>\n<${root} xmlns:xsi="${XSI_NAMESPACE}">\n`;
    for (const entity of publishedEntities(pages)) {
      chunk += entityXml(entity);
      if (chunk.length >= CHUNK_SIZE) {
        yield chunk;
        chunk = '';
      }
    }
    yield `${chunk}</${root}>\n`;
  }

  return Readable.from(chunks(), { objectMode: false });
}
