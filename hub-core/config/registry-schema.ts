import type { JsonObject } from '../base/index.js';
import { str, strings } from './schema-parts.js';

/** Licences the editor offers (SPDX identifiers); any other text is accepted too. */
export const COMMON_LICENSES = ['CC0-1.0', 'CC-BY-4.0', 'CC-BY-SA-4.0', 'ODbL-1.0', 'PDDL-1.0', 'NLOD-2.0', 'MIT', 'Apache-2.0', 'proprietary'];

/** A pipe's `metadata.registry`: the pipe publishes its sink dataset in the hub's registry with this description. */
export const pipeRegistrySchema: JsonObject = {
  type: ['object', 'boolean'],
  description: "publish the pipe's sink dataset in this hub's registry (/registry/entries), described by these fields",
  properties: {
    name: str('the name the registry shows (default: the pipe name, else the dataset id)'),
    description: str('what the dataset holds'),
    keywords: strings('keywords (tags) to find the dataset by'),
    license: str('the licence of the data: an SPDX identifier or free text', { examples: COMMON_LICENSES }),
  },
};

/** The node metadata's `registry`: what the registry publishes and who may read it. */
export const nodeRegistrySchema: JsonObject = {
  type: 'object',
  description: "this hub's dataset registry (/registry)",
  additionalProperties: false,
  properties: {
    publish_all: { type: 'boolean', description: 'publish every dataset (not the system ones), as the public instance does' },
    share: { type: 'boolean', description: 'answer registry requests without a token (off: only the admin token)' },
  },
};

/** The node metadata entity (`"type": "metadata"`, `"_id": "node"`); free apart from the parts the hub reads. */
export const nodeMetadataSchema: JsonObject = {
  type: 'object',
  description: 'the node metadata',
  properties: { registry: nodeRegistrySchema },
};
