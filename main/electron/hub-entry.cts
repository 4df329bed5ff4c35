// Entry of the hub's utility process. A CommonJS file loads the ES-module CLI with import(), whatever the
// utility process's own module support; the arguments after --datahub-cli go to `datahub`.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

interface Cli {
  main(argv: string[]): Promise<void>;
}

const marker = process.argv.indexOf('--datahub-cli');
const cliArgs = marker >= 0 ? process.argv.slice(marker + 1) : [];
const cli = pathToFileURL(join(__dirname, '..', 'cli', 'datahub.js')).href;
(import(cli) as Promise<Cli>).then(
  (m) => m.main(cliArgs),
  (e: unknown) => {
    process.stderr.write(`datahub: the hub could not be loaded: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  },
);
