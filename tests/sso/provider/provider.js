// Real OpenID providers (oidc-provider) for tests/sso, one per entry of PROVIDERS, each on
// its own loopback port: {port, issuer?, clients, idTokenTtl?, discovery?, idTokenAudience?}.
// A sign-in needs no person: the interaction signs in the account named by login_hint
// ("email" or "email|sub") and grants the scopes asked. The test hooks, all off by default:
// `discovery` replaces fields of the discovery document (a provider that advertises another
// issuer or another provider's JWKS), `idTokenAudience` names another audience in ID tokens.
import http from 'node:http';
import { generateKeyPairSync } from 'node:crypto';
import Provider from 'oidc-provider';

const specs = JSON.parse(process.env.PROVIDERS);

function signingKey() {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { ...privateKey.export({ format: 'jwk' }), kid: 'test-key', use: 'sig', alg: 'RS256' };
}

function account(hint) {
  const [email, sub] = String(hint || 'someone@example.com').split('|');
  const local = email.split('@')[0];
  return {
    accountId: sub || `sub-${email}`,
    claims: () => ({
      sub: sub || `sub-${email}`,
      email,
      email_verified: true,
      name: `${local} (SSO)`,
      given_name: local,
      family_name: 'SSO',
    }),
  };
}

async function start(spec) {
  const issuer = spec.issuer || `http://127.0.0.1:${spec.port}`;
  const hints = new Map();
  const provider = new Provider(issuer, {
    clients: spec.clients,
    jwks: { keys: [signingKey()] },
    cookies: { keys: ['plumbline-test-cookies'] },
    claims: {
      openid: ['sub'],
      email: ['email', 'email_verified'],
      profile: ['name', 'given_name', 'family_name'],
    },
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: false } },
    pkce: { required: () => true },
    ttl: { IdToken: spec.idTokenTtl || 3600 },
    findAccount: (ctx, id) => {
      const hint = hints.get(id);
      return hint ? account(hint) : undefined;
    },
    interactions: { url: (ctx, interaction) => `/interaction/${interaction.uid}` },
  });
  provider.proxy = false;
  if (spec.discovery) {
    provider.use(async (ctx, next) => {
      await next();
      if (ctx.path === '/.well-known/openid-configuration' && ctx.body) {
        Object.assign(ctx.body, spec.discovery);
      }
    });
  }
  if (spec.idTokenAudience) {
    const issue = provider.IdToken.prototype.issue;
    provider.IdToken.prototype.issue = async function issueFor(options) {
      const { client } = this;
      this.client = Object.create(client, { clientId: { value: spec.idTokenAudience } });
      try {
        return await issue.call(this, options);
      } finally {
        this.client = client;
      }
    };
  }
  const callback = provider.callback();
  const server = http.createServer(async (req, res) => {
    const match = /^\/interaction\/([^/?]+)/.exec(req.url);
    if (!match) return callback(req, res);
    try {
      const details = await provider.interactionDetails(req, res);
      const { prompt, params } = details;
      if (prompt.name === 'login') {
        const found = account(params.login_hint);
        hints.set(found.accountId, params.login_hint || 'someone@example.com');
        return await provider.interactionFinished(req, res, { login: { accountId: found.accountId } }, { mergeWithLastSubmission: false });
      }
      const grant = new provider.Grant({ accountId: details.session.accountId, clientId: params.client_id });
      grant.addOIDCScope(String(params.scope));
      const grantId = await grant.save();
      return await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
    } catch (err) {
      res.statusCode = 500;
      res.end(String(err && err.stack));
    }
  });
  await new Promise((resolve) => server.listen(spec.port, '127.0.0.1', resolve));
  return issuer;
}

const issuers = [];
for (const spec of specs) issuers.push(await start(spec));
process.stdout.write(`ready ${JSON.stringify(issuers)}\n`);
