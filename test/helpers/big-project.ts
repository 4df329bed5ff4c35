// A generated project at the size of real ones (issue 33): 300 pipes in chains of five over 60 business entities, 36
// systems, config groups per domain, long namespaced-style ids (`timesheet-employee-project-allocation-enriched`),
// scheduled pumps, and one inbound pipe with data whose values are typed (decimals, datetimes, references). Our own
// invention, written by this script; nothing is copied from any real project.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const DOMAINS = ['hr', 'finance', 'timesheet', 'crm', 'erp', 'payroll', 'procurement', 'warehouse', 'logistics', 'customer-service', 'sales', 'marketing'];
const ENTITIES = ['employee-project-allocation', 'salary-history-record', 'cost-center-assignment', 'invoice-line-item', 'customer-contact-person'];
const SYSTEM_KINDS: [string, Record<string, unknown>][] = [
  ['sqlserver-prod', { type: 'system:mssql', host: 'db.example.org', port: 1433, database: 'main', username: 'hub' }],
  ['postgres-replica', { type: 'system:postgresql', host: 'pg.example.org', port: 5432, database: 'replica', username: 'hub' }],
  ['rest-gateway', { type: 'system:url', base_url: 'https://api.example.org/' }],
];

export interface BigProject {
  pipes: string[];
  systems: string[];
  /** The pipe whose dataset holds typed, namespaced values (it has data after one run). */
  typedPipe: string;
}

/** Write the project's node/ folder under `dir`: 300 pipes unless `chains` (5 pipes each) says otherwise. */
export function writeBigProject(dir: string, chains = 60): BigProject {
  const node = join(dir, 'node');
  mkdirSync(join(node, 'pipes'), { recursive: true });
  mkdirSync(join(node, 'systems'), { recursive: true });
  writeFileSync(
    join(node, 'node-metadata.conf.json'),
    JSON.stringify({ _id: 'node', type: 'metadata', namespaced_identifiers: true, namespaces: { default: { acme: 'http://acme.example/' } } }, null, 2),
  );
  const systems: string[] = [];
  for (const d of DOMAINS) {
    for (const [kind, config] of SYSTEM_KINDS) {
      const id = `${d}-${kind}`;
      systems.push(id);
      writeFileSync(join(node, 'systems', `${id}.conf.json`), JSON.stringify({ _id: id, ...config }, null, 2));
    }
  }
  const pipes: string[] = [];
  const write = (config: Record<string, unknown>): void => {
    const id = String(config['_id']);
    pipes.push(id);
    writeFileSync(join(node, 'pipes', `${id}.conf.json`), JSON.stringify({ ...config, type: 'pipe' }, null, 2));
  };
  let typedPipe = '';
  for (let c = 0; c < chains; c++) {
    const domain = DOMAINS[c % DOMAINS.length]!;
    const entity = ENTITIES[Math.floor(c / DOMAINS.length) % ENTITIES.length]!;
    const base = `${domain}-${entity}`;
    const group = { '$config-group': domain };
    const sys = (k: number): string => `${domain}-${SYSTEM_KINDS[k % SYSTEM_KINDS.length]![0]}`;
    // The chains of a domain read from each of its systems in turn (SQL tables, or JSON from its REST gateway), and
    // write to its SQL databases.
    const j = Math.floor(c / DOMAINS.length);
    const readKind = (c + j) % SYSTEM_KINDS.length;
    const writeKind = (c + j + 1) % 2;
    const writeTo = sys(writeKind);
    const inbound = `${base}-${SYSTEM_KINDS[readKind]![0]}`;
    const typed = c === 2;
    if (typed) typedPipe = inbound;
    write({
      _id: inbound,
      metadata: group,
      source: typed
        ? {
            type: 'embedded',
            entities: Array.from({ length: 12 }, (_, i) => ({
              _id: `E${1000 + i}`,
              employee_number: 1000 + i,
              hourly_rate: `~f${(129.9 + i * 7.25).toFixed(2)}`,
              valid_from: `~t2020-06-${String(8 + i).padStart(2, '0')}T00:00:00Z`,
              project_code: `PRJ-${(i % 4) + 1}`,
              cost_center_reference: `~:${domain}-cost-center-assignment:CC-${(i % 3) + 10}`,
              allocation_percent: (i * 13) % 100,
            })),
          }
        : readKind === 2
          ? { type: 'json', system: sys(readKind), url: `${entity}/changes` }
          : { type: 'sql', system: sys(readKind), table: entity.replaceAll('-', '_') },
      pump: { cron_expression: `${c % 60} 3 * * *`, ...(typed ? { mode: 'manual' } : {}) },
    });
    write({
      _id: `${base}-enriched`,
      metadata: group,
      source: { type: 'dataset', dataset: inbound },
      transform: { type: 'dtl', rules: { default: [['copy', '*'], ['add', 'rdf:type', ['ni', 'acme', entity]]] } },
      pump: { schedule_interval: 300 + c },
    });
    write({
      _id: `${base}-merged-with-master-data`,
      metadata: group,
      source: { type: 'merge', datasets: [`${base}-enriched e`, `${DOMAINS[(c + 1) % DOMAINS.length]}-${entity}-enriched m`], equality: [], identity: 'first', version: 2 },
      pump: { schedule_interval: 600 + c },
    });
    write({
      _id: `${base}-to-${SYSTEM_KINDS[writeKind]![0]}`,
      metadata: group,
      source: { type: 'dataset', dataset: `${base}-merged-with-master-data` },
      sink: { type: 'sql', system: writeTo, table: `${entity.replaceAll('-', '_')}_out` },
      pump: { mode: 'manual' },
    });
    write({
      _id: `${base}-published-for-reporting`,
      metadata: group,
      source: { type: 'dataset', dataset: `${base}-merged-with-master-data` },
      pump: { schedule_interval: 3600 },
    });
  }
  return { pipes, systems, typedPipe };
}
