import {
  DIRECTORY_BUCKET,
  DirectoryWorkspace,
  type OperatorDeleteWorkspaceReply,
  directoryKey,
  BUS_APIS,
} from '@wap/contracts';
import { decodeJson } from '@wap/platform';
import { callApi } from '@wap/bus-protocol';
import type { AdminContext } from '../operator';

export interface WorkspaceSummary {
  id: string;
  name: string;
  deleted: boolean;
  members: number;
  /** User ids of the owners. */
  owners: string[];
}

/**
 * `workspaces list`: read from the `directory` bucket storage publishes for every other service,
 * so listing puts no load on storage's database; sorted by name, then id.
 */
export async function listWorkspaces(
  context: AdminContext,
  options: { includeDeleted: boolean },
): Promise<WorkspaceSummary[]> {
  const bucket = await context.platform.kv.view(DIRECTORY_BUCKET);
  const prefix = directoryKey('');
  const summaries: WorkspaceSummary[] = [];
  for (const key of await bucket.keys()) {
    if (!key.startsWith(prefix)) continue;
    const entry = await bucket.get(key);
    if (!entry) continue;
    const parsed = DirectoryWorkspace.safeParse(decodeJson(entry.value));
    if (!parsed.success) throw new Error(`directory entry ${key} does not parse`);
    const workspace = parsed.data;
    if (workspace.deleted && !options.includeDeleted) continue;
    const roles = Object.entries(workspace.members);
    summaries.push({
      id: workspace.id,
      name: workspace.name,
      deleted: workspace.deleted,
      members: roles.length,
      owners: roles.filter(([, role]) => role === 'owner').map(([userId]) => userId),
    });
  }
  return summaries.sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
}

/** `workspaces delete`: storage soft-deletes it as an owner's DELETE would, for the operator. */
export function deleteWorkspace(
  context: AdminContext,
  workspaceId: string,
): Promise<OperatorDeleteWorkspaceReply> {
  return callApi(
    context.platform.bus,
    BUS_APIS.operatorDeleteWorkspace,
    { workspaceId },
    { timeoutMs: context.timeoutMs },
  );
}
