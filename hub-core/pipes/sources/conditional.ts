// The conditional source type.

import type { SourceType } from '../pipe-types.js';
import { str, ref } from '../../config/index.js';
import { conditionalSource } from './conditional-source.js';
import type { SourceFactory } from './source.js';

/** `readerOf`: how the alternatives are read (the source types of this hub). */
export function conditionalType(readerOf: (type: string) => SourceFactory | undefined): SourceType {
  return {
    type: 'conditional',
    doc: 'one of several alternative sources, picked by "condition"',
    options: {
      required: ['alternatives'],
      properties: {
        condition: str('picks the alternative by name, usually "$ENV(node-env)"'),
        alternatives: {
          type: 'object',
          description: 'named sources; the one named by the condition runs (a "test" alternative is how projects run offline)',
          additionalProperties: ref('source'),
          minProperties: 1,
        },
      },
    },
    read: conditionalSource(readerOf),
  };
}
