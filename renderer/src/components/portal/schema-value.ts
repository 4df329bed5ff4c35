// Starting value for a schema form: nested objects exist up front, so the form never has to create
// state while it renders; defaults from the schema are filled in.
type Rec = Record<string, unknown>;

export function initialValue(schema: Rec): Rec {
  const out: Rec = {};
  for (const [key, p] of Object.entries((schema['properties'] ?? {}) as Record<string, Rec>)) {
    if (p['type'] === 'object') out[key] = initialValue(p);
    else if (p['default'] !== undefined) out[key] = structuredClone(p['default']);
  }
  return out;
}
