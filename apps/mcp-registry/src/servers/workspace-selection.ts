import { AppError, WORKSPACE_HEADER, type ServiceRequest } from '@wap/contracts';
import { z } from 'zod';

const WorkspaceId = z.uuid();

function firstValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function checked(value: string, source: string): string {
  if (!WorkspaceId.safeParse(value).success) {
    throw new AppError('VALIDATION_ERROR', `${source} must be a uuid`, {
      details: [{ path: [source], message: 'Invalid UUID' }],
    });
  }
  return value;
}

/**
 * The workspace a refresh names, in this order (docs/decisions/0022): query `workspace_id`,
 * query `workspaceId` (alias), header `x-workspace-id`, JSON body `workspaceId`; the first one
 * present wins. Undefined when none is given (the caller's first workspace is used then).
 */
export function explicitWorkspace(request: ServiceRequest): string | undefined {
  const fromQuery = firstValue(request.query['workspace_id']);
  if (fromQuery) return checked(fromQuery, 'workspace_id');
  const alias = firstValue(request.query['workspaceId']);
  if (alias) return checked(alias, 'workspaceId');
  const header = request.headers[WORKSPACE_HEADER];
  if (header) return checked(header, WORKSPACE_HEADER);
  const body = request.body;
  if (body && typeof body === 'object' && 'workspaceId' in body) {
    const value = (body as { workspaceId?: unknown }).workspaceId;
    if (typeof value === 'string' && value) return checked(value, 'workspaceId');
  }
  return undefined;
}

/** The workspace id of GET routes: `workspaceId`, or `workspace_id`; undefined when absent. */
export function queryWorkspace(request: ServiceRequest): string | undefined {
  const value =
    firstValue(request.query['workspaceId']) ?? firstValue(request.query['workspace_id']);
  return value ? checked(value, 'workspaceId') : undefined;
}
