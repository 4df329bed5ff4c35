// Configuration files keep their text: the layout of the service's tooling (`sesam format`) for new files, and for an
// edit only the lines that hold what changed. Expected texts are worked out by hand from that layout's rules.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sesamLayout, updatedFileText } from '../../../hub-core/config/index.js';
import { removeDir, tempDir, useHub } from '../../helpers/hub-process.js';


/** Lines only in `a` (removed) and only in `b` (added), by a longest common subsequence of lines. */
function lineDiff(a: string, b: string): { removed: string[]; added: string[] } {
  const x = a.split('\n');
  const y = b.split('\n');
  const t = Array.from({ length: x.length + 1 }, () => new Array<number>(y.length + 1).fill(0));
  for (let i = x.length - 1; i >= 0; i--) for (let j = y.length - 1; j >= 0; j--) t[i]![j] = x[i] === y[j] ? t[i + 1]![j + 1]! + 1 : Math.max(t[i + 1]![j]!, t[i]![j + 1]!);
  const removed: string[] = [];
  const added: string[] = [];
  let i = 0;
  let j = 0;
  while (i < x.length || j < y.length) {
    if (i < x.length && j < y.length && x[i] === y[j]) { i++; j++; } else if (j >= y.length || (i < x.length && t[i + 1]![j]! >= t[i]![j + 1]!)) removed.push(x[i++]!);
    else added.push(y[j++]!);
  }
  return { removed, added };
}

// A pipe as `sesam format` lays it out: conventional keys first, nested lists of DTL on lines of their own.
const SESAM_PIPE = `{
  "_id": "person-crm",
  "type": "pipe",
  "source": {
    "type": "dataset",
    "dataset": "crm-person"
  },
  "transform": {
    "type": "dtl",
    "rules": {
      "default": [
        ["copy", "_id"],
        ["add", "name",
          ["concat", "_S.first", " ", "_S.last"]
        ],
        ["add", "city", "Tromsø – 北京"],
        ["add", "tags",
          ["list", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n"]
        ]
      ]
    }
  },
  "metadata": {
    "owner": "Åse"
  },
  "add_namespaces": false
}
`;

describe('the layout of the service tooling', () => {
  test('orders keys by convention and lays out objects, lists and lists in lists as sesam format does', () => {
    const value = JSON.parse(SESAM_PIPE) as Record<string, unknown>;
    // Keys given in another order come out in the conventional one.
    const shuffled = { add_namespaces: false, metadata: value['metadata'], transform: value['transform'], source: value['source'], type: 'pipe', _id: 'person-crm' };
    assert.equal(sesamLayout(shuffled), SESAM_PIPE);
  });

  test('objects in lists open on the line of their list, empty containers stay closed', () => {
    const value = { _id: 's', type: 'pipe', sink: { type: 'dataset' }, list: [{ b: 1, a: [] }, { c: {} }], n: [[1], [2, [3]]] };
    assert.equal(
      sesamLayout(value),
      `{
  "_id": "s",
  "type": "pipe",
  "sink": {
    "type": "dataset"
  },
  "list": [{
    "a": [],
    "b": 1
  }, {
    "c": {}
  }],
  "n": [
    [1],
    [2,
      [3]
    ]
  ]
}
`,
    );
  });
});

describe('updating a file keeps its text', () => {
  test('the same content is the same bytes, whatever the layout or key order', () => {
    const odd = '{"type":"pipe",   "_id" : "x",\r\n "source": {"type": "dataset", "dataset": "a"}}';
    assert.equal(updatedFileText(odd, { _id: 'x', type: 'pipe', source: { dataset: 'a', type: 'dataset' } }), odd);
  });

  test('a file in the tooling layout changes only the lines that changed', () => {
    const value = JSON.parse(SESAM_PIPE) as { source: { dataset: string }; transform: { rules: { default: unknown[] } } };
    value.source.dataset = 'crm-person-v2';
    value.transform.rules.default.push(['add', 'rdf:type', ['ni', 'crm', 'Person']]);
    const out = updatedFileText(SESAM_PIPE, value);
    // The rule's closing bracket gets a comma, or (the same lines) the new rule comes after it: four lines added.
    assert.deepEqual(lineDiff(SESAM_PIPE, out), {
      removed: ['    "dataset": "crm-person"'],
      added: ['    "dataset": "crm-person-v2"', '        ],', '        ["add", "rdf:type",', '          ["ni", "crm", "Person"]'],
    });
  });

  test('a hand-made layout (four spaces, one rule a line, own key order) is kept around the change', () => {
    const hand = [
      '{',
      '    "_id": "orders",',
      '    "type": "pipe",',
      '    "sink": { "type": "dataset", "dataset": "orders" },',
      '    "source": {',
      '        "type": "dataset",',
      '        "dataset": "raw-orders"',
      '    },',
      '    "transform": { "type": "dtl", "rules": { "default": [',
      '        ["copy", "*"],',
      '        ["add", "total", ["sum", "_S.lines.amount"]]',
      '    ] } }',
      '}',
      '',
    ].join('\n');
    const value = JSON.parse(hand) as Record<string, Record<string, unknown>>;
    value['sink']!['dataset'] = 'orders-v2';
    value['source']!['supports_signalling'] = true;
    value['pump'] = { schedule_interval: 60 };
    const out = updatedFileText(hand, value);
    assert.deepEqual(JSON.parse(out), value);
    assert.deepEqual(lineDiff(hand, out), {
      removed: ['    "sink": { "type": "dataset", "dataset": "orders" },', '        "dataset": "raw-orders"', '    ] } }'],
      added: [
        '    "sink": { "type": "dataset", "dataset": "orders-v2" },',
        '        "dataset": "raw-orders",',
        '        "supports_signalling": true',
        '    ] } },',
        '    "pump": {',
        '        "schedule_interval": 60',
        '    }',
      ],
    });
  });

  test('a long list with one element changed keeps every other element', () => {
    const ids = Array.from({ length: 300 }, (_, i) => `id-${i}`);
    const text = JSON.stringify({ _id: 'big', type: 'pipe', source: { type: 'embedded', entities: ids.map((_id) => ({ _id, name: `Name ${_id}` })) } }, null, 2) + '\n';
    const value = JSON.parse(text) as { source: { entities: { _id: string; name: string }[] } };
    value.source.entities[150]!.name = 'Ærlig navn ✓';
    value.source.entities.splice(10, 1);
    const out = updatedFileText(text, value);
    assert.deepEqual(JSON.parse(out), value);
    const diff = lineDiff(text, out);
    assert.deepEqual(diff.removed.sort(), ['      {', '        "_id": "id-10",', '        "name": "Name id-10"', '      },', '        "name": "Name id-150"'].sort());
    assert.deepEqual(diff.added, ['        "name": "Ærlig navn ✓"']);
  });

  test('a file that is not JSON, or a new file, gets the tooling layout', () => {
    const v = { _id: 'n', type: 'pipe' };
    assert.equal(updatedFileText(undefined, v), '{\n  "_id": "n",\n  "type": "pipe"\n}\n');
    assert.equal(updatedFileText('{ broken', v), '{\n  "_id": "n",\n  "type": "pipe"\n}\n');
  });
});

describe('saving through the hub writes only what changed', () => {
  const project = tempDir('datahub-format-');
  const node = join(project, 'node');
  mkdirSync(join(node, 'pipes'), { recursive: true });
  const HAND = '{\n\t"_id": "tabbed",\n\t"type": "pipe",\n\t"source": {"type": "dataset", "dataset": "person-crm"},\n\t"transform": {"type": "dtl", "rules": {"default": [["copy", "*"]]}}\n}\n';
  writeFileSync(join(node, 'pipes', 'person-crm.conf.json'), SESAM_PIPE);
  writeFileSync(join(node, 'pipes', 'tabbed.conf.json'), HAND);
  const hub = useHub({ args: ['--workspace', project] });
  process.on('exit', () => removeDir(project));

  const put = async (id: string, config: unknown): Promise<void> => {
    const res = await hub.fetch(`/pipes/${id}/config`, { method: 'PUT', json: config });
    assert.equal(res.status, 200, await res.text());
  };

  test('PUT of the same configuration leaves the file byte for byte', async () => {
    const config = await hub.json<Record<string, unknown>>('/pipes/person-crm/config');
    await put('person-crm', config);
    assert.equal(readFileSync(join(node, 'pipes', 'person-crm.conf.json'), 'utf8'), SESAM_PIPE);
  });

  test('one property edited through the API changes one line of a sesam-format file', async () => {
    const config = await hub.json<{ metadata: Record<string, unknown> }>('/pipes/person-crm/config');
    config.metadata['owner'] = 'Øyvind';
    await put('person-crm', config);
    const now = readFileSync(join(node, 'pipes', 'person-crm.conf.json'), 'utf8');
    assert.deepEqual(lineDiff(SESAM_PIPE, now), { removed: ['    "owner": "Åse"'], added: ['    "owner": "Øyvind"'] });
  });

  test('one property edited in a tab-indented file changes one line and keeps the tabs', async () => {
    const config = await hub.json<{ source: Record<string, unknown> }>('/pipes/tabbed/config');
    config.source['dataset'] = 'person-crm-v2';
    await put('tabbed', config);
    const now = readFileSync(join(node, 'pipes', 'tabbed.conf.json'), 'utf8');
    assert.deepEqual(lineDiff(HAND, now), {
      removed: ['\t"source": {"type": "dataset", "dataset": "person-crm"},'],
      added: ['\t"source": {"type": "dataset", "dataset": "person-crm-v2"},'],
    });
  });

  test('a pipe created through the API gets a file in the tooling layout', async () => {
    const res = await hub.fetch('/pipes', { method: 'POST', json: [{ type: 'pipe', _id: 'fresh', transform: { rules: { default: [['copy', '*']] }, type: 'dtl' }, source: { type: 'dataset', dataset: 'tabbed' } }] });
    assert.equal(res.status, 200, await res.text());
    assert.equal(
      readFileSync(join(node, 'pipes', 'fresh.conf.json'), 'utf8'),
      '{\n  "_id": "fresh",\n  "type": "pipe",\n  "source": {\n    "type": "dataset",\n    "dataset": "tabbed"\n  },\n  "transform": {\n    "type": "dtl",\n    "rules": {\n      "default": [\n        ["copy", "*"]\n      ]\n    }\n  }\n}\n',
    );
  });
});
