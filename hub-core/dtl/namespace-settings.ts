// What a pipe run knows about namespaces: the settings the compiler and the run share (no imports, so that any DTL
// file may use the type without an import circle).

/** Namespace settings of a pipe (service metadata `namespaced_identifiers`, the pipe's `namespaces`). */
export interface NamespaceSettings {
  /** Namespaced identifiers are on for the pipe (the node's setting or the pipe's own `namespaced_identifiers`). */
  readonly enabled: boolean;
  /** The pipe's identity namespace (default: the pipe id); null for none. */
  readonly identityNamespace: string | null;
  /** The pipe's property namespace (default: the pipe id); null for none. */
  readonly propertyNamespace: string | null;
  /** Declared namespaces: name -> URI prefix (service metadata `namespaces.default`). */
  readonly prefixes?: Readonly<Record<string, string>>;
  /** Used to name generated namespaces for undeclared URI prefixes ("<pipe id>-1", "<pipe id>-2", ...). */
  readonly pipeId?: string;
}
