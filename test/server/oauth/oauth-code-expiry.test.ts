/**
 * The authorization code's 10 minutes, to the millisecond: the OAuth feature's clock is frozen
 * (the `now` the service's tests inject) while the code is issued, then set just before, at and
 * after the code's end. oauth-flow.test.ts checks a refusal some time after 10 minutes of real
 * time; this pins the boundary itself: usable up to 599 999 ms after issue, `invalid_grant`
 * (expired) from 600 000 ms on.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  answerConsent,
  apiCall,
  authorizeAndLogIn,
  authorizeUrl,
  consentTicket,
  createOAuthTestApp,
  FakeInstances,
  locationOf,
  pkcePair,
  redeem,
  registerClient,
  type OAuthTestApp,
  type TestClient,
  type TokenAnswer,
} from './oauth-test-app.js';

const USER = '42@social.example';
const CODE_LIFETIME_MS = 10 * 60_000;

let t: OAuthTestApp;
let instances: FakeInstances;
let client: TestClient;
/** The instant the codes are issued at. */
let issuedAt = 0;
/** The OAuth feature's clock: exactly this value, moved by the tests. */
let clock = 0;

beforeEach(async () => {
  issuedAt = Date.now();
  clock = issuedAt;
  instances = new FakeInstances();
  t = await createOAuthTestApp({ gateway: instances, now: () => clock });
  client = await registerClient(t.app);
});
afterEach(() => t.close());

/** A code issued at `issuedAt` (the clock frozen there for the whole front-channel trip) and its verifier. */
async function codeIssuedAtStart(): Promise<{ code: string; verifier: string }> {
  clock = issuedAt;
  const { verifier, challenge } = pkcePair();
  const { code } = await authorizeAndLogIn(t, instances, client, { accountId: '42', challenge });
  expect(code).toBeTruthy();
  return { code, verifier };
}

function expectExpired(response: { statusCode: number; body: string; json: <T>() => T }): void {
  expect(response.statusCode, response.body).toBe(400);
  const body = response.json<{ error: string; error_description: string; status_code: number }>();
  expect(body.error).toBe('invalid_grant');
  expect(body.status_code).toBe(400);
  // Refused for its age, not for another reason that would hide a wrong boundary.
  expect(body.error_description).toMatch(/expired/);
}

describe('the authorization code lives exactly 10 minutes', () => {
  it('is redeemed at 9 min 59 s, and the tokens it gives work', async () => {
    const { code, verifier } = await codeIssuedAtStart();
    clock = issuedAt + 9 * 60_000 + 59_000;
    const response = await redeem(t.app, client, code, verifier);
    expect(response.statusCode, response.body).toBe(200);
    const tokens = response.json<TokenAnswer>();
    expect(tokens.token_type).toBe('Bearer');
    expect(tokens.access_token).toMatch(/^rsv_/);
    expect(await apiCall(t.app, tokens.access_token, USER)).toBe(200);
  });

  it('is redeemed 1 ms before its end', async () => {
    const { code, verifier } = await codeIssuedAtStart();
    clock = issuedAt + CODE_LIFETIME_MS - 1;
    const response = await redeem(t.app, client, code, verifier);
    expect(response.statusCode, response.body).toBe(200);
  });

  it('is refused with invalid_grant at exactly 10 minutes', async () => {
    const { code, verifier } = await codeIssuedAtStart();
    clock = issuedAt + CODE_LIFETIME_MS;
    expectExpired(await redeem(t.app, client, code, verifier));
  });

  it('is refused with invalid_grant 1 ms after 10 minutes, and later, and issues nothing', async () => {
    const { code, verifier } = await codeIssuedAtStart();
    for (const afterMs of [CODE_LIFETIME_MS + 1, CODE_LIFETIME_MS + 60_000]) {
      clock = issuedAt + afterMs;
      const response = await redeem(t.app, client, code, verifier);
      expectExpired(response);
      expect(response.json<Partial<TokenAnswer>>().access_token).toBeUndefined();
    }
  });

  it('counts the 10 minutes from the consent that issued the code, not from the start of the login', async () => {
    // The login started 4 minutes before the user approved: the code still has its full 10 minutes.
    const { verifier, challenge } = pkcePair();
    clock = issuedAt - 4 * 60_000;
    const toInstance = locationOf(await t.app.inject({ method: 'GET', url: authorizeUrl(client, { code_challenge: challenge }) }));
    clock = issuedAt;
    const state = encodeURIComponent(toInstance.searchParams.get('state')!);
    const back = await t.app.inject({ method: 'GET', url: `/api/v1/oauth/callback?code=${instances.approve('42')}&state=${state}` });
    const approved = locationOf(await answerConsent(t.app, consentTicket(back), 'approve'), 303);
    const code = approved.searchParams.get('code')!;
    clock = issuedAt + CODE_LIFETIME_MS - 1_000;
    expect((await redeem(t.app, client, code, verifier)).statusCode).toBe(200);
  });
});
