// A hops alias that is reached only by a filter expression ("or"/"and" of conditions) is read whole and filtered.
// The rule, from the service's DTL reference guide (DTLReferenceGuide.rst, "Path Expressions and Hops"): "only eq
// functions will be treated as join expressions. All other function are treated as filter expressions." So an alias
// whose only condition sits inside an "or" is not an error: every one of its entities is tried against the filter.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryLookup } from '../../../hub-core/dtl/index.js';
import { compileExpression } from '../../../hub-core/dtl/index.js';
import { encode } from '../../../hub-core/dtl/index.js';
import type { JsonValue } from '../../../hub-core/base/index.js';

// Mappings from a project (and optionally a component) to a task; links from issues to components.
const DATA = {
  mapping: [
    { _id: 'm-any', project: 'P1', component: '0', task: 'general' },
    { _id: 'm-ui', project: 'P1', component: 'C7', task: 'frontend' },
    { _id: 'm-other', project: 'P2', component: '0', task: 'elsewhere' },
  ],
  link: [
    { _id: 'l1', kind: 'IssueComponent', issue: 'i1', component: 'C7' },
    { _id: 'l2', kind: 'IssueFixVersion', issue: 'i2', component: 'C7' },
  ],
  issue: [
    { _id: 'i1', project: 'P1' },
    { _id: 'i2', project: 'P1' },
  ],
};

const HOPS: JsonValue = [
  'path',
  'task',
  [
    'sorted',
    '_.task',
    [
      'hops',
      {
        datasets: ['mapping m', 'link l', 'issue i'],
        return: 'm',
        where: [
          ['eq', '_S.issue', 'i._id'],
          ['eq', 'i.project', 'm.project'],
          ['or', ['eq', '0', 'm.component'], ['and', ['eq', 'l.kind', 'IssueComponent'], ['eq', 'l.component', 'm.component'], ['eq', 'l.issue', 'i._id']]],
        ],
      },
    ],
  ],
];

function tasks(issue: string): JsonValue {
  const compiled = compileExpression(HOPS);
  assert.deepEqual(compiled.errors.filter((e) => e.level === 'error'), [], 'the alias reached only inside "or" is not an error');
  assert.ok(
    compiled.errors.some((e) => e.level === 'warning' && /alias "l" is joined only inside this condition/.test(e.msg)),
    'a warning says the dataset is read whole',
  );
  return encode(compiled.evaluate({ source: { _id: 'w', issue }, lookup: new MemoryLookup(DATA) }));
}

test('an alias joined only inside an "or" is read whole and filtered (worked out by hand from the rule above)', () => {
  // i1 is in P1 and linked to component C7: the project-wide mapping (component "0") matches, and so does the C7
  // mapping through link l1 (an IssueComponent link of i1 to C7). The mapping m-other is of another project.
  assert.deepEqual(tasks('i1'), ['frontend', 'general']);
  // i2 is in P1 but its only link is not an IssueComponent: only the project-wide mapping.
  assert.deepEqual(tasks('i2'), ['general']);
});
