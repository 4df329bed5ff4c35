// The ldap source type: kept in configuration, not read by this hub (it reads a directory server).

import type { SourceType } from '../pipe-types.js';
import { str, strings } from '../../config/index.js';

export const ldapType: SourceType = {
  type: 'ldap',
  doc: 'entries of an LDAP directory (kept in config; not run by the desktop hub)',
  options: {
    required: ['system'],
    properties: {
      system: str('a system:ldap system'),
      search_base: str('the base DN to search from'),
      search_filter: str('an LDAP filter, default "(objectClass=*)"'),
      id_attribute: str('the attribute that gives the _id'),
      attributes: strings('attributes to read (default: all)'),
      attribute_blacklist: strings('attributes to leave out'),
      page_size: { type: 'integer', minimum: 1, description: 'entries per page' },
    },
  },
};
