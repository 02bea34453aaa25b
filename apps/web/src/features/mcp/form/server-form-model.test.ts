import { describe, expect, test } from 'vitest';
import {
  authConfigOf,
  emptyServerForm,
  headersOf,
  registerBodyOf,
  updateBodyOf,
  type ServerFormValues,
} from './server-form-model';

const WORKSPACE = '6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f';
const MEMBER = '0b1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f';
const form = (changes: Partial<ServerFormValues>): ServerFormValues => ({
  ...emptyServerForm(),
  name: 'Everything',
  serverUrl: 'https://mcp.example.com/mcp',
  ...changes,
});

describe('the auth section of the MCP server form', () => {
  test.each([
    ['none', {}, undefined],
    [
      'direct',
      { secret: 's3cret' },
      { type: 'direct', headerName: 'Authorization', prefix: 'Bearer', value: 's3cret' },
    ],
    [
      'direct',
      { secret: 'k', authHeaderName: ' X-Api-Key ', authPrefix: '' },
      { type: 'direct', headerName: 'X-Api-Key', prefix: '', value: 'k' },
    ],
    [
      'basic',
      { username: 'ann', password: 'pw' },
      { type: 'basic', username: 'ann', password: 'pw' },
    ],
    [
      'env_var',
      { envVarName: 'GITHUB_TOKEN', authHeaderName: '' },
      { type: 'env_var', prefix: 'Bearer', value: 'GITHUB_TOKEN' },
    ],
    ['account', {}, { type: 'account' }],
    ['account', { scopes: ' issues:read  ' }, { type: 'account', value: 'issues:read' }],
  ] as const)('%s sends exactly its own keys (%#)', (authType, changes, config) => {
    expect(authConfigOf(form({ authType, ...changes }))).toEqual({ ok: true, config });
  });

  test.each([
    ['direct', {}, { secret: 'Enter a value.' }],
    ['basic', { password: 'pw' }, { username: 'Enter a value.' }],
    ['basic', { username: 'a:b', password: 'pw' }, { username: 'No colons or line breaks' }],
    [
      'env_var',
      { envVarName: '1TOKEN' },
      { envVarName: 'Use letters, digits and underscores, not starting with a digit.' },
    ],
    [
      'account',
      { scopes: 'issues:read\tissues:write' },
      { scopes: 'Scopes are words separated by spaces.' },
    ],
    [
      'direct',
      { secret: 'x', authHeaderName: 'Bad Name' },
      { headerName: 'Not a valid header name' },
    ],
  ] as const)('%s without its fields says which (%#)', (authType, changes, errors) => {
    expect(authConfigOf(form({ authType, ...changes }))).toEqual({ ok: false, errors });
  });
});

describe('the headers rows', () => {
  test('blank rows are left out, names trimmed', () => {
    expect(
      headersOf([
        { key: 1, name: ' X-Org ', value: 'acme' },
        { key: 2, name: '', value: '' },
      ]),
    ).toEqual({ ok: true, headers: { 'X-Org': 'acme' } });
  });

  test('each row is checked by the contract, and a name twice is refused', () => {
    expect(
      headersOf([
        { key: 1, name: 'X-Org', value: 'a' },
        { key: 2, name: 'x-org', value: 'b' },
        { key: 3, name: '', value: 'orphan' },
        { key: 4, name: 'Bad Name', value: 'c' },
      ]),
    ).toEqual({
      ok: false,
      rowErrors: {
        2: { name: 'This header is already listed.' },
        3: { name: 'Enter a value.', value: undefined },
        4: { name: 'Not a valid header name', value: undefined },
      },
    });
  });

  test('transport headers are refused with the contract’s message', () => {
    expect(headersOf([{ key: 1, name: 'Host', value: 'evil' }])).toMatchObject({
      ok: false,
      error: expect.stringContaining('Headers cannot set transport headers'),
    });
  });
});

describe('the register body', () => {
  test('a complete form becomes endpoint 2’s body; members only for the modes that take them', () => {
    expect(
      registerBodyOf(
        WORKSPACE,
        form({
          description: 'Test server',
          headers: [{ key: 1, name: 'X-Org', value: 'acme' }],
          accessMode: 'everyone',
          accessibleTo: [MEMBER],
          authType: 'basic',
          username: 'ann',
          password: 'pw',
        }),
      ),
    ).toEqual({
      ok: true,
      body: {
        workspaceId: WORKSPACE,
        serverType: 'custom',
        name: 'Everything',
        serverUrl: 'https://mcp.example.com/mcp',
        description: 'Test server',
        headers: { 'X-Org': 'acme' },
        accessMode: 'everyone',
        accessibleTo: [],
        authConfig: { type: 'basic', username: 'ann', password: 'pw' },
      },
    });
    expect(
      registerBodyOf(WORKSPACE, form({ accessMode: 'specific_users', accessibleTo: [MEMBER] })),
    ).toMatchObject({ ok: true, body: { accessMode: 'specific_users', accessibleTo: [MEMBER] } });
  });

  test('an http URL passes: the server refuses it, and the form shows its answer', () => {
    expect(registerBodyOf(WORKSPACE, form({ serverUrl: 'http://mcp.example.com' })).ok).toBe(true);
  });

  test('every section’s errors come back together', () => {
    expect(
      registerBodyOf(
        WORKSPACE,
        form({
          name: ' ',
          serverUrl: '',
          authType: 'direct',
          headers: [{ key: 7, name: 'Bad Name', value: 'x' }],
        }),
      ),
    ).toEqual({
      ok: false,
      errors: {
        name: 'Enter a value.',
        serverUrl: 'Enter a value.',
        secret: 'Enter a value.',
        headers: 'Correct the headers marked below.',
        headerRows: { 7: { name: 'Not a valid header name', value: undefined } },
      },
    });
  });
});

describe('the edit body', () => {
  test('stored headers and credentials are kept unless the person replaces them', () => {
    expect(
      updateBodyOf(form({ secret: 'ignored', authType: 'direct' }), {
        headers: false,
        auth: false,
      }),
    ).toEqual({
      ok: true,
      body: { name: 'Everything', description: '', accessMode: 'everyone', accessibleTo: [] },
    });
  });

  test('replacing with no authentication says so explicitly', () => {
    expect(updateBodyOf(form({}), { headers: true, auth: true })).toMatchObject({
      ok: true,
      body: { headers: {}, authConfig: { type: 'none' } },
    });
  });
});
