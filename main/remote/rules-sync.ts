// "Sync rules": make a subscription's notification rules match the rules kept with the pipes of this hub (the
// workspace's `metadata.notification_rules`, hub-core/config/notification-rules.ts). Rules are matched per pipe by name. A
// rule only here is created, one whose parameters differ is updated (its recipients kept), one whose type differs is
// replaced (removed and created: a rule's type cannot change), and a subscription rule of one of these pipes that the
// workspace no longer has is removed. Nothing is removed, and nothing is replaced, unless the caller confirms.
import type { NotificationRule as LocalRule } from '../../hub-core/config/index.js';
import type { NotificationRule as PortalRule, PortalRecord } from '../../hub-core/base/index.js';
import type { RuleSyncChange, RuleSyncResult } from '../../hub-core/desktop-types.js';

export type { RuleSyncChange, RuleSyncResult };

/** What of the portal the sync uses (PortalClient has it). */
export interface RulePortal {
  allRules(sub: string): Promise<PortalRule[]>;
  createRule(sub: string, pipe: string, rule: PortalRule): Promise<PortalRule>;
  updateRule(sub: string, pipe: string, id: string, rule: Pick<PortalRule, 'name' | 'description' | 'extra_rule_info' | 'recipients'>): Promise<PortalRule>;
  deleteRule(sub: string, pipe: string, id: string): Promise<unknown>;
}

/** JSON with sorted keys, to compare parameters. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

function differences(local: LocalRule, remote: PortalRule): string[] {
  const out: string[] = [];
  if (remote.type !== local.type) out.push(`type ${remote.type} → ${local.type}`);
  if ((remote.description ?? '') !== local.description) out.push('description');
  if (canonical(remote.extra_rule_info ?? {}) !== canonical(local.extra_rule_info)) out.push('extra_rule_info');
  return out;
}

/**
 * Compare (and with `apply`, carry out) the sync of `sub`'s rules with `local` (rules by pipe id, for every pipe of
 * this hub). `confirmRemove` allows removals and replacements.
 */
export async function syncRules(
  portal: RulePortal,
  sub: string,
  local: ReadonlyMap<string, readonly LocalRule[]>,
  options: { apply: boolean; confirmRemove: boolean },
): Promise<RuleSyncResult> {
  const remote = await portal.allRules(sub);
  const changes: RuleSyncChange[] = [];
  let elsewhere = 0;
  const byPipe = new Map<string, PortalRule[]>();
  for (const r of remote) {
    const pipe = r.pipe_id;
    if (pipe === undefined || !local.has(pipe)) {
      elsewhere++;
      continue;
    }
    byPipe.set(pipe, [...(byPipe.get(pipe) ?? []), r]);
  }
  const body = (rule: LocalRule): PortalRule => ({ type: rule.type, name: rule.name, description: rule.description, extra_rule_info: rule.extra_rule_info as PortalRecord });
  for (const pipe of [...local.keys()].sort()) {
    const theirs = byPipe.get(pipe) ?? [];
    const matched = new Set<PortalRule>();
    for (const rule of local.get(pipe)!) {
      const other = theirs.find((r) => !matched.has(r) && (r.name ?? '') === rule.name);
      if (!other) {
        if (options.apply) await portal.createRule(sub, pipe, body(rule));
        changes.push({ pipe, name: rule.name, action: 'create', what: [], done: options.apply });
        continue;
      }
      matched.add(other);
      const what = differences(rule, other);
      if (what.length === 0) {
        changes.push({ pipe, name: rule.name, action: 'same', what, done: false });
      } else if (other.type !== rule.type) {
        const now = options.apply && options.confirmRemove;
        if (now) {
          await portal.deleteRule(sub, pipe, String(other.id));
          await portal.createRule(sub, pipe, { ...body(rule), ...(other.recipients ? { recipients: other.recipients } : {}) });
        }
        changes.push({ pipe, name: rule.name, action: 'replace', what, done: now });
      } else {
        if (options.apply) {
          await portal.updateRule(sub, pipe, String(other.id), { name: rule.name, description: rule.description, extra_rule_info: rule.extra_rule_info as PortalRecord, ...(other.recipients ? { recipients: other.recipients } : {}) });
        }
        changes.push({ pipe, name: rule.name, action: 'update', what, done: options.apply });
      }
    }
    for (const r of theirs) {
      if (matched.has(r)) continue;
      const now = options.apply && options.confirmRemove;
      if (now) await portal.deleteRule(sub, pipe, String(r.id));
      changes.push({ pipe, name: r.name ?? String(r.id), action: 'remove', what: [], done: now });
    }
  }
  return { changes, elsewhere, applied: options.apply };
}
