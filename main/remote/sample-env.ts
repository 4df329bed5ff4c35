/** The environment variable that holds the key of scrubbed sample values (else <data>/sample-scrub-key). */
export const SCRUB_KEY_ENV = 'DATAHUB_SCRUB_KEY';
