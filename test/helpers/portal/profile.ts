// The portal's front: its status at /api, login redirects, and the signed-in user's profile (section 2.2).
import type { FastifyInstance } from 'fastify';
import { PortalError, type P, type PortalContext } from './context.js';
import type { Json, PortalUser } from './types.js';

const TOS_VERSION = 4;

export function profileRoutes(app: FastifyInstance, ctx: PortalContext): void {
  const { now, userOnly, body, approvedTos } = ctx;
  const startTime = now();
  app.get('/api', async () => ({
    authentication_providers: [
      { id: 'internal', login_url: '/api/login/internal', login_button_text: 'Sign in with e-mail' },
      { id: 'example-sso', login_url: '/api/login/example-sso', login_button_text: 'Sign in with Example SSO', login_button_tooltip: 'Your company account' },
    ],
    status: {
      'feature-level': 3,
      health_status: { status: 'ok' },
      version: '2026.11.1',
      revision: 'c0ffee1',
      'git-revision': 'c0ffee1d2e3f',
      'build-date': '2026-11-02T08:00:00Z',
      'ci-buildnumber': '4711',
      start_time: startTime,
      uptime: `${Math.round((Date.now() - Date.parse(startTime)) / 1000)} s`,
      is_email_verification_required: true,
      is_fallback_mode: false,
      is_internal_users_enabled: true,
      is_itest_mode: true,
      tos_version: TOS_VERSION,
    },
    tos_version: TOS_VERSION,
  }));

  // Profile changes a user may make (section 2.2); approvedTos and isPortalAdmin are request-only fields.
  const profiles = new Map<string, Json>();
  const adminPowers = new Map<string, boolean>();
  const profileOf = (u: PortalUser): Json => {
    const extra = profiles.get(u.user_id) ?? {};
    const { providerIds, providerWhitelist, ...profile } = extra;
    return {
      'supported-operations': {
        activate_portal_admin_powers: u.portalAdmin === true,
        create_paymentmethod: true,
        create_subscription: true,
        create_trial_subscription: true,
        delete_account: true,
        request_email_verification: false,
        request_trial_subscription: true,
        send_reset_password_email: true,
        update_user_profile: true,
      },
      userInfo: {
        isLoggedIn: true,
        user_id: u.user_id,
        profile: { email: u.email, email_is_verified: true, name: u.name, nickname: '', picture: '', ...profile },
        providerIds: providerIds ?? ['internal'],
        providerWhitelist: providerWhitelist ?? [],
      },
    };
  };
  const strings = (v: unknown, name: string): string[] => {
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw new PortalError(400, 'invalid request', `${name} must be a list of strings`);
    return v as string[];
  };
  app.get('/api/profile', async (req) => profileOf(userOnly(req)));
  app.put('/api/profile', async (req) => {
    const u = userOnly(req);
    const info = (body(req)['userInfo'] ?? {}) as Json;
    const profile = (info['profile'] ?? {}) as Json;
    const changes: Json = { ...(profiles.get(u.user_id) ?? {}) };
    for (const key of ['name', 'nickname', 'picture']) {
      if (key in profile && typeof profile[key] !== 'string') throw new PortalError(400, 'invalid request', `${key} must be a string`);
      if (typeof profile[key] === 'string') changes[key] = profile[key];
    }
    if ('providerIds' in info) changes['providerIds'] = strings(info['providerIds'], 'providerIds');
    if ('providerWhitelist' in info) changes['providerWhitelist'] = strings(info['providerWhitelist'], 'providerWhitelist');
    if ('approvedTos' in info) {
      const v = info['approvedTos'];
      if (typeof v !== 'number' || v < 0 || v > TOS_VERSION) throw new PortalError(400, 'invalid request', `approvedTos must be a Terms of Service version up to ${TOS_VERSION}`);
    }
    if ('isPortalAdmin' in info) {
      if (u.portalAdmin !== true) throw new PortalError(403, 'forbidden', 'only portal administrators can switch on their powers');
      if (typeof info['isPortalAdmin'] !== 'boolean') throw new PortalError(400, 'invalid request', 'isPortalAdmin must be a boolean');
    }
    // Everything checked: apply.
    if (typeof info['approvedTos'] === 'number') approvedTos.set(u.user_id, info['approvedTos']);
    if (typeof info['isPortalAdmin'] === 'boolean') adminPowers.set(u.user_id, info['isPortalAdmin']);
    if (typeof changes['name'] === 'string') u.name = changes['name'];
    profiles.set(u.user_id, changes);
    return profileOf(u);
  });
  app.post<P>('/api/login/:provider', async (req, reply) => reply.redirect(`/login_callback/${encodeURIComponent(req.params['provider']!)}`));
}
