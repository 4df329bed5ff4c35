// The examples of the service's DTL function pages (datanav/docs: hub/dtl/dtl-functions-numbers.rst,
// dtl-functions-sets.rst, dtl-functions-lists.rst, dtl-functions-nulls.rst, dtl-functions-dictionaries.rst,
// dtl-functions-booleans.rst, dtl-functions-uris.rst, dtl-functions-json.rst, dtl-functions-misc.rst), copied by hand
// with the results the pages give. They are added to each function's own cases (test/hub-core/dtl/dtl-cases/index.ts) and run by
// test/hub-core/dtl/dtl-functions.test.ts. (The "path" examples with namespaced identifiers on need a pipe's namespace settings,
// and the join pages' examples need datasets: both are in test/hub-core/dtl/dtl-doc-joins.test.ts.)
//
// Float literals with a zero fraction (["is-float", 1.0]) are written as configuration text and parsed as the hub
// parses configuration (config-json.ts keeps them as written); JSON.parse alone would read 1.0 as the integer 1.
// Left out: results that are such floats (["float", "1.0"] gives 1.0), which JSON output cannot tell from 1.
//
// Where the pages contradict themselves:
// - hex: ["hex", 1] gives "0x01" (one byte, two's complement), but the list example shows "0x1" for the same 1; we
//   follow the single-value examples and the description (two's complement bytes): "0x01".
// - json, json-transit: the list example gives a URI's text without quotes ("http://www.example.org/",
//   "~rhttp://www.example.org/") though the same list gives "\"abc\"" for a string; we give what the page gives (a
//   URI on its own only; inside a list or dict it stays quoted JSON, on which the page is silent).
// Not matched (a difference of value model, not of the pages): ["is-uri", ["json-parse", "\"~rhttp://...\""]] is
// false on the page, as json-parse gives the plain string "~rhttp://..."; in this hub a string with a known tag is
// that typed value (values.ts), so it is true here.
// - hash128: the page's results are plain integers of 38 and 39 digits; they are read here from the page's text as
//   JSON (parseJson reads integers beyond ±2^53 exactly, as the entity data model's integers are unlimited).
//   The page's list example nests the two hashes of ["combine", "abc", 123, "def"] in a second list; so do we.
// - The examples with "_S.<path>" and no data ("count" of "_S.orders", ...) describe rather than give a result and
//   are not cases.
import type { JsonValue } from '../../../../hub-core/base/index.js';
import { parseConfigText, parseJson } from '../../../../hub-core/base/index.js';
import type { ExpressionTable } from './types.js';

/** An expression as written in a pipe's transform (float literals kept). */
const written = (text: string): JsonValue => (parseConfigText(`{"transform": ${text}}`) as { transform: JsonValue }).transform;

/** A result as the page writes it, read as JSON text (integers of any size exactly). */
const page = (text: string): JsonValue => parseJson(text) as JsonValue;

export const DOC_EXAMPLES: ExpressionTable = {
  'is-float': [
    { expr: written('["is-float", 1.0]'), result: true },
    { expr: written('["is-float", 1]'), result: false },
    { expr: written('["is-float", ["list", 1.0, "12345"]]'), result: true },
    { expr: written('["is-float", ["list", "1.0", 2.0]]'), result: false },
    { expr: written('["is-float", ["list", ["decimal", "-1.0"], 123.4]]'), result: false },
    { expr: ["is-float", ["list", 1.5, "12345"]], result: true },
    { expr: ["is-float", ["list", "1.0", 2.0]], result: false },
    { expr: ["is-float", ["list", ["decimal", "-1.0"], 123.4]], result: false },
    { expr: ["is-float", ["decimal", "1.23"]], result: false },
  ],
  'is-integer': [
    { expr: ["is-integer", ["list", 1, "12345"]], result: true },
    { expr: ["is-integer", ["list", "1", 2]], result: false },
    { expr: ["is-integer", ["list", ["integer", "1"], 2]], result: true },
  ],
  'is-decimal': [
    { expr: written('["is-decimal", 1.0]'), result: false },
    { expr: written('["is-decimal", ["list", 1.0, "12345"]]'), result: false },
    { expr: written('["is-decimal", ["list", "1.0", 2.0]]'), result: false },
    { expr: ["is-decimal", ["decimal", "1.23"]], result: true },
    { expr: ["is-decimal", ["list", 1.5, "12345"]], result: false },
    { expr: ["is-decimal", ["list", ["decimal", "-1.0"], 1234]], result: true },
  ],
  'integer': [
    { expr: ["integer", "1"], result: 1 },
    { expr: ["integer", ["list", "1", "~rhttp://www.example.org/", 124.4, 12345]], result: [1, 124, 12345] },
    { expr: ["integer", ["integer", 0], ["list", "1", "~rhttp://www.example.org/", "10^2", 12345]], result: [1, 0, 0, 12345] },
    { expr: ["integer", ["string", "n/a"], ["list", "1", "~rhttp://www.example.org/", "10^2", 12345]], result: [1, "n/a", "n/a", 12345] },
    { expr: ["integer", ["string", "_."], ["list", "1", "~rhttp://www.example.org/", "10^2", 12345]], result: [1, "http://www.example.org/", "10^2", 12345] },
    { expr: ["integer", "0x00ff"], result: 255 },
    { expr: ["integer", "0xff"], result: -1 },
  ],
  'decimal': [
    { expr: ["decimal", "1.0"], result: "~f1.0" },
    { expr: ["decimal", ["list", "1.0", "~rhttp://www.example.org/", 2.2, "one"]], result: ["~f1.0", "~f2.2"] },
  ],
  'float': [
    { expr: ["float", "1.5"], result: 1.5 },
    { expr: ["float", ["list", "1.5", "~rhttp://www.example.org/", 2.2, "one"]], result: [1.5, 2.2] },
    { expr: ["float", ["boolean", false], ["list", "1.5", 2.1, "~rhttp://www.example.org/", "124.4", "FALSE"]], result: [1.5, 2.1, false, 124.4, false] },
    { expr: ["float", ["string", "n/a"], ["list", "1.5", 2.5, "~rhttp://www.example.org/", "124.4"]], result: [1.5, 2.5, "n/a", 124.4] },
    { expr: ["float", ["string", "_."], ["list", "1.5", 2.5, "~rhttp://www.example.org/", "2.5"]], result: [1.5, 2.5, "http://www.example.org/", 2.5] },
  ],
  'hex': [
    { expr: ["hex", 1], result: "0x01" },
    { expr: ["hex", 255], result: "0x00ff" },
    { expr: ["hex", -1], result: "0xff" },
    { expr: ["hex", ["list", 1, "~rhttp://www.example.org/", 124.4, 12345]], result: ["0x01", "0x3039"] }, // the page shows "0x1" here (see above)
  ],
  'difference': [
    { expr: ["difference", ["list", "A", "B"], ["list", "B"]], result: ["A"] },
    { expr: ["difference", "A", ["list", "B", "C"]], result: ["A"] },
    { expr: ["difference", ["list", "A", "B", "C", "D"], ["list", "A", "B", "E"]], result: ["C", "D"] },
  ],
  'intersection': [
    { expr: ["intersection", ["list", "A", "B"], ["list", "B", "C"]], result: ["B"] },
    { expr: ["intersection", "B", ["list", "B", "C"]], result: ["B"] },
    { expr: ["intersection", "A", ["list", "B", "C"]], result: [] },
  ],
  'intersects': [
    { expr: ["intersects", ["list", "A", "B"], ["list", "B", "C"]], result: true },
    { expr: ["intersects", "B", ["list", "B", "C"]], result: true },
    { expr: ["intersects", "A", ["list", "B", "C"]], result: false },
  ],
  'union': [
    { expr: ["union", ["list", "A", "B"], ["list", "B", "C"]], result: ["A", "B", "C"] },
    { expr: ["union", "A", ["list", "B", "C"]], result: ["A", "B", "C"] },
  ],
  'combine': [
    { expr: ["combine", null], result: [] },
    { expr: ["combine", 1], result: [1] },
    { expr: ["combine", 1, 4], result: [1, 4] },
    { expr: ["combine", 1, ["list", 2, 3]], result: [1, 2, 3] },
    { expr: ["combine", 1, ["list", 2, 3, ["list", 4]]], result: [1, 2, 3, [4]] },
    { expr: ["combine", ["list", 1, 2], ["list", 3, 4], 5], result: [1, 2, 3, 4, 5] },
  ],
  'count': [
    { expr: ["count", ["list", 2, 4, 6]], result: 3 },
    { expr: ["count", null], result: 0 },
    { expr: ["count", 123], result: 1 },
  ],
  'distinct': [
    { expr: ["distinct", ["list", 4, 2, 5, 4, 3]], result: [4, 2, 5, 3] },
  ],
  'enumerate': [
    { expr: ["enumerate", "a"], result: {"key": 0, "value": "a"} },
    { expr: ["enumerate", 1, "a"], result: {"key": 1, "value": "a"} },
    { expr: ["enumerate", ["list", 17, 32, 21]], result: [{"key": 0, "value": 17}, {"key": 1, "value": 32}, {"key": 2, "value": 21}] },
    { expr: ["enumerate", 2, ["list", 17, 32, 21]], result: [{"key": 2, "value": 17}, {"key": 3, "value": 32}, {"key": 4, "value": 21}] },
  ],
  'filter': [
    { expr: ["filter", ["gt", "_.age", 42], ["list", {"age": 30}, {"age": 50}, {"age": 40}]], result: [{"age": 50}] },
  ],
  'first': [
    { expr: ["first", ["list", "a", "b", "c"]], result: "a" },
    { expr: ["first", 123], result: 123 },
  ],
  'flatten': [
    { expr: ["flatten", ["list", 1, 2, ["list", 3, 4]]], result: [1, 2, 3, 4] },
    { expr: ["flatten", ["list", ["list", 1, 2], ["list", 3, ["list", 4], 5]]], result: [1, 2, 3, [4], 5] },
  ],
  'group-by': [
    { expr: ["group-by", ["length", "_."], ["list", "phi", "alpha", "rho"]], result: {"3": ["phi", "rho"], "5": ["alpha"]} },
    { expr: ["group-by", ["upper", "_."], ["list", "a", "b"]], result: {"\"A\"": ["a"], "\"B\"": ["b"]} },
    { expr: ["group-by", ["upper", "_."], ["string", "_."], ["list", "a", "b"]], result: {"A": ["a"], "B": ["b"]} },
  ],
  'group': [
    { expr: ["group", ["first", "_."], ["nth", 1, "_."], ["list", ["list", "Adresse1", "A"], ["list", "Adresse2", "B"], ["list", "Adresse2", "C"]]], result: [["Adresse1", ["A"]], ["Adresse2", ["B", "C"]]] },
    { expr: ["group", ["upper", "_."], ["lower", "_."], "Hello"], result: [["HELLO", ["hello"]]] },
  ],
  'dict': [
    { expr: ["dict", ["group", ["first", "_."], ["nth", 1, "_."], ["list", ["list", "Adresse1", "A"], ["list", "Adresse2", "B"], ["list", "Adresse2", "C"]]]], result: {"Adresse1": ["A"], "Adresse2": ["B", "C"]} },
    { expr: ["dict"], result: {} },
    { expr: ["dict", ["list", ["list", "A", 1], ["list", "B", 2], ["list", "C", 3]]], result: {"A": 1, "B": 2, "C": 3} },
    { expr: ["dict", ["list", "X", 123, ["list", "A", 1]]], result: {"A": 1} },
    { expr: ["dict", "a", ["upper", "a"], ["lower", "B"], "B"], result: {"a": "A", "b": "B"} },
  ],
  'in': [
    { expr: ["in", "a", ["list", "a", "b", "c"]], result: true },
    { expr: ["in", "d", ["list", "a", "b", "c"]], result: false },
    { expr: ["in", ["list", 10], 10], result: true },
    { expr: ["in", ["list"], 10], result: false },
    { expr: ["in", null, ["list", null]], result: false },
    { expr: ["in", ["list", null], ["list", 1, null, 2]], result: true },
    { expr: ["in", ["list", "a", "c"], ["list", "a", "b", "c"]], result: true },
    { expr: ["in", ["list", "a", "c", "d"], ["list", "a", "b", "c"]], result: false },
  ],
  'insert': [
    { expr: ["insert", 1, 2, 3], result: [2, 3] },
    { expr: ["insert", 1, ["list", 1, 2], ["list", 3, 4]], result: [1, [3, 4], 2] },
    { expr: ["insert", -2, ["list", 1, 2, 3], 4], result: [1, 4, 2, 3] },
  ],
  'is-list': [
    { expr: ["is-list", ["list", "foo:bar"]], result: true },
    { expr: ["is-list", "foo:bar"], result: false },
    { expr: ["is-list", ["list", ["uri", "foo:bar"], 12345]], result: true },
    { expr: ["is-list", ["dict", "1", 2]], result: false },
    { expr: ["is-list", ["items", ["dict", "1", 2]]], result: true },
  ],
  'last': [
    { expr: ["last", ["list", "a", "b", "c"]], result: "c" },
  ],
  'list': [
    { expr: ["list"], result: [] },
    { expr: ["list", "a", "b", "c"], result: ["a", "b", "c"] },
    { expr: ["list", "a", ["list", "b"], "c"], result: ["a", ["b"], "c"] },
  ],
  'map': [
    { expr: ["map", ["lower", "_."], ["list", "A", "B", "C"]], result: ["a", "b", "c"] },
    { expr: ["map", ["distinct", "_."], ["list", ["list", "A", "A"], ["list", "B", "C"]]], result: [["A"], ["B", "C"]] },
  ],
  'map-dict': [
    { expr: ["map-dict", ["upper", "_."], ["plus", 1, "_."], {"A": 1, "B": 2}], result: {"A": 2, "B": 3} },
    { expr: ["map-dict", ["if", ["gt", ["length", "_."], 2], ["concat", "x:", "_."]], "_.", ["list", {"abc": 1, "ab": 2, "abcd": 3}, {"def": 4}, {"gh": 5}]], result: [{"x:abc": 1, "x:abcd": 3}, {"x:def": 4}] },
  ],
  'map-values': [
    { expr: ["map-values", ["lower", "_."], {"key1": "A", "key2": "B"}], result: ["a", "b"] },
  ],
  'coalesce-args': [
    { expr: ["coalesce-args", null, null, 123, 236], result: 123 },
    { expr: ["coalesce-args", null, ["list"], 123, 236], result: [] }, // "as that is the first non-null argument"
    { expr: ["coalesce-args", "_S.one", "_S.two", "_S.three"], source: { two: "b", three: "c" }, result: "b" }, // the page's words, given data
  ],
  'if-null': [
    { expr: ["if-null", null, 2], result: 2 },
    { expr: ["if-null", 1, 2], result: 1 },
    { expr: ["if-null", ["list", null], 2], result: 2 },
    { expr: ["if-null", ["list", null, 123], 2], result: 2 },
    { expr: ["if-null", ["list", 1, "12345"], 2], result: [1, "12345"] },
  ],
  'is-not-null': [
    { expr: ["is-not-null", null], result: false },
    { expr: ["is-not-null", 1], result: true },
    { expr: ["is-not-null", ["list"]], result: false },
    { expr: ["is-not-null", ["list", null]], result: false },
    { expr: ["is-not-null", ["list", null, 123]], result: false },
    { expr: ["is-not-null", ["list", 1, "12345"]], result: true },
  ],
  'is-null': [
    { expr: ["is-null", null], result: true },
    { expr: ["is-null", 1], result: false },
    { expr: ["is-null", ["list"]], result: true },
    { expr: ["is-null", ["list", null]], result: true },
    { expr: ["is-null", ["list", null, 123]], result: true },
    { expr: ["is-null", ["list", 1, "12345"]], result: false },
  ],
  'is-dict': [
    { expr: ["is-dict", "_S."], source: {"_id": "x"}, result: true },
    { expr: ["is-dict", ["list", {"a": 1}, 123]], result: true },
    { expr: ["is-dict", ["list", 123, {"a": 1}]], result: false },
    { expr: ["is-dict", "abc"], result: false },
  ],
  'items': [
    { expr: ["items", ["list", {"A": 1, "B": 2}, {"C": 3}]], result: [["A", 1], ["B", 2], ["C", 3]] },
    { expr: ["items", ["list", "X", 123, {"A": 1}]], result: [["A", 1]] },
  ],
  'key-values': [
    { expr: ["key-values", ["list", {"A": 1, "B": 2}, 123, {"C": 3, "A": 1}]], result: [{"key": "A", "value": 1}, {"key": "B", "value": 2}, {"key": "C", "value": 3}, {"key": "A", "value": 1}] },
    { expr: ["key-values", {"hello": "world"}], result: {"key": "hello", "value": "world"} },
  ],
  'keys': [
    { expr: ["keys", ["list", {"A": 1, "B": 2}, {"A": 1, "C": 3}]], result: ["A", "B", "A", "C"] },
    { expr: ["keys", ["list", "X", 123, {"A": 1}]], result: ["A"] },
  ],
  'values': [
    { expr: ["values", ["list", {"A": 1, "B": 2}, {"A": 1, "C": 3}]], result: [1, 2, 1, 3] },
    { expr: ["values", ["list", "X", 123, {"A": 1}]], result: [1] },
  ],
  'path': [
    { expr: ["path", "age", ["list", {"age": 23}, {"age": 24}]], result: [23, 24] },
    { expr: ["path", "age", {"age": 24}], result: 24 },
    { expr: ["path", "foo", {"bar": 123}], result: null },
    { expr: ["path", ["list", "a", "b"], ["list", {"a": {"b": 1}}, {"a": [{"b": 2}, {"b": 3}]}]], result: [1, 2, 3] },
  ],
  'boolean': [
    { expr: ["boolean", "false"], result: false },
    { expr: ["boolean", null], result: null },
    { expr: ["boolean", ["list", "true", "~rhttp://www.example.org/", "True", false, 1234]], result: [true, true, false] },
    { expr: ["boolean", ["boolean", false], ["list", "true", "~rhttp://www.example.org/", "124.4", "FALSE"]], result: [true, false, false, false] },
    { expr: ["boolean", ["string", "n/a"], ["list", "true", "~rhttp://www.example.org/", "124.4"]], result: [true, "n/a", "n/a"] },
    { expr: ["boolean", ["string", "_."], ["list", "true", "~rhttp://www.example.org/", "False"]], result: [true, "http://www.example.org/", false] },
  ],
  'is-boolean': [
    { expr: ["is-boolean", false], result: true },
    { expr: ["is-boolean", "True"], result: false },
    { expr: ["is-boolean", ["list", true, "12345"]], result: true },
    { expr: ["is-boolean", ["list", "12345", true]], result: false },
    { expr: ["is-boolean", ["list", ["boolean", "FALSE"], 1234]], result: true },
  ],
  'is-uri': [
    { expr: ["is-uri", ["uri", "foo:bar"]], result: true },
    { expr: ["is-uri", "foo:bar"], result: false },
    { expr: ["is-uri", ["list", ["uri", "foo:bar"], 12345]], result: true },
    { expr: ["is-uri", ["list", 1, ["uri", "foo:bar"]]], result: false },
    { expr: ["is-uri", ["json-transit-parse", "\"~rhttp://www.example.org/\""]], result: true },
    { expr: ["is-uri", ["json-transit-parse", "no-value", "\"~rhttp://example.org/\""]], result: true },
  ],
  'uri': [
    { expr: ["uri", "http://www.example.org/"], result: "~rhttp://www.example.org/" },
    { expr: ["uri", ["list", "http://www.example.org/", "http://www.sesam.io/", 12345]], result: ["~rhttp://www.example.org/", "~rhttp://www.sesam.io/"] },
  ],
  'url-quote': [
    { expr: ["url-quote", "/foo bar/baz"], result: "%2Ffoo%20bar%2Fbaz" },
    { expr: ["url-quote", "/", "/foo bar/baz"], result: "/foo%20bar/baz" },
    { expr: ["url-quote", ["list", "å", 1, 2, ["uri", "http://example.com"], "foo bar"]], result: ["%C3%A5", "foo%20bar"] },
  ],
  'url-unquote': [
    { expr: ["url-unquote", "%2Ffoo%20bar%2Fbaz"], result: "/foo bar/baz" },
    { expr: ["url-unquote", ["list", 1, "%C3%A5", ["uri", "http://example.com"], "foo%20bar"]], result: ["å", "foo bar"] }, // the page writes "url-quote" in this url-unquote example (a slip: its result is unquoted text)
  ],
  'json': [
    { expr: ["json", 1], result: "1" },
    { expr: ["json", "hello"], result: "\"hello\"" },
    { expr: ["json", ["list", "abc", ["list", 1, 2, 3], {"b": 2, "a": 1}, ["uri", "http://www.example.org/"], 124.4, 12345]], result: ["\"abc\"", "[1, 2, 3]", "{\"a\": 1, \"b\": 2}", "http://www.example.org/", "124.4", "12345"] }, // a URI on its own: its text, no quotes
  ],
  'json-parse': [
    { expr: ["json-parse", "1"], result: 1 },
    { expr: ["json-parse", "\"hello\""], result: "hello" },
    { expr: ["json-parse", "{\"a\": 1, \"b\": 2}"], result: {"a": 1, "b": 2} },
    { expr: ["json-parse", "hello"], result: null },
    { expr: ["json-parse", ["list", "hello", "123", "null", "\"abc\"", "\"~rhttp://example.org/\""]], result: [123, null, "abc", "~rhttp://example.org/"] },
    { expr: ["json-parse", "no-value", "hello"], result: "no-value" },
    { expr: ["json-parse", "no-value", "null"], result: null },
  ],
  'json-transit': [
    { expr: ["json-transit", 1], result: "1" },
    { expr: ["json-transit", "hello"], result: "\"hello\"" },
    { expr: ["json-transit", ["list", "abc", ["list", 1, 2, 3], {"b": 2, "a": 1}, ["uri", "http://www.example.org/"], 124.4, 12345]], result: ["\"abc\"", "[1, 2, 3]", "{\"a\": 1, \"b\": 2}", "~rhttp://www.example.org/", "124.4", "12345"] }, // a URI on its own: its tagged string, no quotes
  ],
  'json-transit-parse': [
    { expr: ["json-transit-parse", "1"], result: 1 },
    { expr: ["json-transit-parse", "\"hello\""], result: "hello" },
    { expr: ["json-transit-parse", "hello"], result: null },
    { expr: ["json-transit-parse", ["list", "hello", "123", "null", "\"abc\"", "\"~rhttp://example.org/\""]], result: [123, null, "abc", "~rhttp://example.org/"] },
    { expr: ["json-transit-parse", "no-value", "~rhttp://example.org/"], result: "no-value" },
  ],
  'hash128': [
    { expr: ["hash128", "murmur3", "abc"], result: page('79267961763742113019008347020647561319') }, // the page's number, exactly (see above)
    { expr: ["hash128", "murmur3", ["combine", "abc", 123, "def"]], result: page('[[79267961763742113019008347020647561319, 114697464648834432121201791580882983835]]') }, // nested as on the page
  ],
  'literal': [
    { expr: ["literal", "_S.foo"], result: "_S.foo" },
    { expr: ["literal", {"foo": 1, "bar": 2}], result: {"foo": 1, "bar": 2} },
    { expr: ["literal", ["upper", "hello"]], result: ["upper", "hello"] },
  ],
  'tuples': [
    { expr: ["tuples"], result: [] },
    { expr: ["tuples", "a", "b", "c"], result: [["a", "b", "c"]] },
    { expr: ["tuples", ["list", 1, 2], 3], result: [[1, 3], [2, 3]] },
    { expr: ["tuples", ["list", 1, 2], ["list", 3, null, 4, 5]], result: [[1, 3], [1, 4], [1, 5], [2, 3], [2, 4], [2, 5]] },
  ],
};
