import { AppError, directoryRoutes, type Actor, type ServiceReply, BUS_APIS } from '@wap/contracts';
import { type Platform } from '@wap/platform';
import { callApi, callRoute } from '@wap/bus-protocol';
import type { DirectoryOperation } from '../directory/handlers';
import { testRuntimes } from '@wap/testing';

/** Generous for a cold PGlite, still far below jest's test timeout. */
export const CALL_TIMEOUT_MS = 10_000;

export type { RuntimeUnderTest } from '@wap/testing';

/** The two runtimes every integration spec here runs on. */
export const runtimes = testRuntimes('storage-test');

const subjectOf = new Map<string, string>(
  directoryRoutes.map((route) => [route.operationId, route.subject]),
);

let requestCounter = 0;

/** Calls a directory route exactly as the gateway forwards it. */
export function callDirectoryRoute(
  platform: Platform,
  operation: DirectoryOperation,
  actor: Actor | null,
  request: { params?: Record<string, string>; body?: unknown } = {},
): Promise<ServiceReply> {
  const subject = subjectOf.get(operation);
  if (!subject) throw new Error(`no route ${operation}`);
  requestCounter += 1;
  return callRoute(
    platform.bus,
    subject,
    {
      requestId: `storage-spec-${requestCounter}`,
      actor,
      params: request.params ?? {},
      query: {},
      headers: {},
      // JSON has no undefined: a route without a body carries null, as the gateway sends it.
      body: request.body ?? null,
    },
    { timeoutMs: CALL_TIMEOUT_MS },
  );
}

/** Signs a user in as the gateway does: ensure_user maps the session subject to a user id. */
export async function signIn(
  platform: Platform,
  identity: { subject: string; email: string; name: string },
): Promise<Actor> {
  const reply = await callApi(platform.bus, BUS_APIS.ensureUser, identity, {
    timeoutMs: CALL_TIMEOUT_MS,
  });
  return { userId: reply.userId, ...identity, platformAdmin: false };
}

/** The AppError a call failed with, reduced to what the client sees. */
export async function failureOf(
  call: Promise<unknown>,
): Promise<{ status: number; code: string; message: string }> {
  try {
    await call;
  } catch (error) {
    if (error instanceof AppError) {
      return { status: error.status, code: error.code, message: error.message };
    }
    throw error;
  }
  throw new Error('expected the call to fail');
}
