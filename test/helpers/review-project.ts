// A small project with one failing test, for reviewing and accepting a diff (ui-tests-review, tests-review-api).
// Its expected files are in a layout of their own (four-space indents, keys not sorted, a "_note"), so keeping the
// layout on accept can be checked byte by byte. The expected outputs are worked out by hand from the service's
// documentation (hub/dtl/transforms.rst: `copy` copies `_id`, `add` sets a property to the value of its expression;
// hub/dtl/functions.rst: `upper` upper-cases a string, `gt` compares numbers; hub/dtl/transforms.rst: `filter`
// drops the entities its expression is false for).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const PEOPLE = [
  { _id: 'p1', name: 'ada', age: 36, address: { city: 'london', zip: 'n1' } },
  { _id: 'p2', name: 'bob', age: 40, address: { city: 'oslo', zip: '0150' } },
  { _id: 'p3', name: 'cy', age: 22, address: { city: 'paris', zip: '75001' } },
];

/**
 * people.json as the user wrote it. p1 is right; p2 has three wrong values (name "Bob" not "BOB", age 41 not 40, the
 * nested address.zip "0151" not "0150"); p3 (in the output) is not there; p4 (not in the output) is.
 */
export const PEOPLE_EXPECTED = `[
    {
        "_id": "p1",
        "_note": "hand-worked: copy _id; name upper-cased; age and address as the source has them",
        "name": "ADA",
        "age": 36,
        "address": {"city": "london", "zip": "n1"}
    },
    {
        "_id": "p2",
        "name": "Bob",
        "age": 41,
        "address": {"city": "oslo", "zip": "0151"}
    },
    {
        "_id": "p4",
        "name": "DEE",
        "age": 50,
        "address": {"city": "rome", "zip": "00100"}
    }
]
`;

/** The test spec, keys in an order of its own. */
export const PEOPLE_SPEC = `{
    "pipe": "people",
    "file": "people.json"
}
`;

/** Write the project into `dir` (node/ inside it). */
export function writeReviewProject(dir: string): void {
  const node = join(dir, 'node');
  for (const sub of ['pipes', 'expected']) mkdirSync(join(node, sub), { recursive: true });
  const pipe = (id: string, source: unknown, rules: unknown[]): string =>
    `${JSON.stringify({ _id: id, type: 'pipe', source, transform: { type: 'dtl', rules: { default: rules } } }, null, 2)}\n`;
  writeFileSync(join(node, 'pipes', 'people.conf.json'), pipe('people', { type: 'embedded', entities: PEOPLE }, [['copy', '_id'], ['add', 'name', ['upper', '_S.name']], ['add', 'age', '_S.age'], ['add', 'address', '_S.address']]));
  writeFileSync(join(node, 'pipes', 'people-adults.conf.json'), pipe('people-adults', { type: 'dataset', dataset: 'people' }, [['filter', ['gt', '_S.age', 30]], ['copy', '_id'], ['add', 'name', '_S.name']]));
  writeFileSync(join(node, 'pipes', 'places.conf.json'), pipe('places', { type: 'embedded', entities: [{ _id: 'c1', city: 'oslo' }] }, [['copy', '_id'], ['add', 'city', '_S.city']]));
  writeFileSync(join(node, 'expected', 'people.test.json'), PEOPLE_SPEC);
  writeFileSync(join(node, 'expected', 'people.json'), PEOPLE_EXPECTED);
  writeFileSync(join(node, 'expected', 'people-adults.test.json'), '{}\n');
  // people-adults: p1 (36) and p2 (40) are over 30, with the names people wrote (upper-cased).
  writeFileSync(join(node, 'expected', 'people-adults.json'), `${JSON.stringify([{ _id: 'p1', name: 'ADA' }, { _id: 'p2', name: 'BOB' }], null, 2)}\n`);
  writeFileSync(join(node, 'expected', 'places.test.json'), '{}\n');
  writeFileSync(join(node, 'expected', 'places.json'), `${JSON.stringify([{ _id: 'c1', city: 'oslo' }], null, 2)}\n`);
}
