// The empty source type.

import type { SourceType } from '../pipe-types.js';
import { emptySource } from './basic-sources.js';

export const emptyType: SourceType = {
  type: 'empty',
  doc: 'no entities',
  options: { properties: {} },
  read: emptySource,
};
