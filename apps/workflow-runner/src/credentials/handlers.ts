import { sealSecret, type CredentialKeyring } from '@wap/auth';
import {
  AppError,
  CreateCredentialBody,
  CredentialIdParams,
  UpdateCredentialBody,
  WorkspaceIdParams,
  type Actor,
} from '@wap/contracts';
import { actorOf, parseRequestPart, type RouteHandler } from '@wap/bus-protocol';
import type { DirectoryClient } from '@wap/workspace-directory';
import {
  credentialBody,
  credentialContext,
  CredentialNameTakenError,
  type CredentialRepository,
  type CredentialRow,
} from './repository';

/**
 * Workspace credentials (decision 152): members list them and save their own; a value is
 * replaced by its creator or a workspace owner, who may use it is set by its creator alone.
 * Anyone outside the workspace finds no such workspace.
 */
/* eslint-disable-next-line max-lines-per-function --
  route handlers: one short handler per route over the dependencies they share */
export function credentialHandlers(deps: {
  credentials: CredentialRepository;
  directory: DirectoryClient;
  keyring: CredentialKeyring;
}): {
  list_workspace_credentials: RouteHandler;
  create_workspace_credential: RouteHandler;
  update_workspace_credential: RouteHandler;
  delete_workspace_credential: RouteHandler;
} {
  const { credentials, directory, keyring } = deps;

  async function roleIn(workspaceId: string, actor: Actor): Promise<'owner' | 'member'> {
    const role = await directory.confirmedRoleOf(workspaceId, actor.userId);
    if (!role) throw new AppError('NOT_FOUND', 'Workspace not found');
    return role;
  }

  async function credentialOf(
    request: Parameters<RouteHandler>[0],
  ): Promise<{ actor: Actor; role: 'owner' | 'member'; row: CredentialRow }> {
    const actor = actorOf(request);
    const { workspaceId, credentialId } = parseRequestPart(CredentialIdParams, request.params);
    const role = await roleIn(workspaceId, actor);
    const row = await credentials.find(workspaceId, credentialId);
    if (!row) throw new AppError('NOT_FOUND', 'Credential not found');
    return { actor, role, row };
  }

  function requireCreatorOrOwner(actor: Actor, role: string, row: CredentialRow, what: string) {
    if (row.createdBy !== actor.userId && role !== 'owner') {
      throw new AppError(
        'FORBIDDEN',
        `Only its creator and the workspace's owners may ${what} a credential`,
      );
    }
  }

  return {
    async list_workspace_credentials(request) {
      const actor = actorOf(request);
      const { workspaceId } = parseRequestPart(WorkspaceIdParams, request.params);
      await roleIn(workspaceId, actor);
      const rows = await credentials.list(workspaceId);
      return { status: 200, body: { credentials: rows.map(credentialBody) } };
    },

    async create_workspace_credential(request) {
      const actor = actorOf(request);
      const { workspaceId } = parseRequestPart(WorkspaceIdParams, request.params);
      const body = parseRequestPart(CreateCredentialBody, request.body);
      await roleIn(workspaceId, actor);
      try {
        const row = await credentials.create({
          workspaceId,
          name: body.name,
          access: body.access,
          createdBy: actor.userId,
          seal: (at) => sealSecret(keyring, body.value, credentialContext(at)),
        });
        return { status: 201, body: { credential: credentialBody(row) } };
      } catch (error) {
        if (error instanceof CredentialNameTakenError) {
          throw new AppError('CONFLICT', 'The workspace has a credential of this name already');
        }
        throw error;
      }
    },

    async update_workspace_credential(request) {
      const { actor, role, row } = await credentialOf(request);
      const body = parseRequestPart(UpdateCredentialBody, request.body);
      if (body.value !== undefined) requireCreatorOrOwner(actor, role, row, 'replace');
      if (body.access !== undefined && row.createdBy !== actor.userId) {
        throw new AppError('FORBIDDEN', 'Only its creator may change who may use a credential');
      }
      const updated = await credentials.update(row, {
        ...(body.value !== undefined
          ? { sealedValue: sealSecret(keyring, body.value, credentialContext(row)) }
          : {}),
        ...(body.access !== undefined ? { access: body.access } : {}),
        updatedBy: actor.userId,
      });
      if (!updated) throw new AppError('NOT_FOUND', 'Credential not found');
      return { status: 200, body: { credential: credentialBody(updated) } };
    },

    async delete_workspace_credential(request) {
      const { actor, role, row } = await credentialOf(request);
      requireCreatorOrOwner(actor, role, row, 'delete');
      if (!(await credentials.delete(row))) throw new AppError('NOT_FOUND', 'Credential not found');
      return { status: 204 };
    },
  };
}
