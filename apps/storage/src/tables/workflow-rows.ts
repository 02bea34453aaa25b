import { z } from 'zod';
import { AppError, type TableRowReply, type TableRowRequest } from '@wap/contracts';
import type { WorkspaceStanding } from '../directory/access';
import { checkCells } from './cells';
import { rowBody } from './handlers';
import type { TablesRepository } from './repository';

/**
 * Serves the `table_row` workflow step: adds a row to a table of the run's workspace, acting for
 * the workflow's creator. `values` are keyed by property id or by property name.
 */
export function createWorkflowRowWriter(deps: {
  repository: TablesRepository;
  standingOf(workspaceId: string, userId: string): Promise<WorkspaceStanding>;
}) {
  return async function addRowForWorkflow(
    request: z.infer<typeof TableRowRequest>,
  ): Promise<z.infer<typeof TableRowReply>> {
    // A step's tableId is whatever its settings hold: not a uuid is no table of ours.
    const isUuid = z.uuid().safeParse(request.tableId).success;
    const table = isUuid ? await deps.repository.findTable(request.tableId) : null;
    const standing = table ? await deps.standingOf(table.workspaceId, request.userId) : null;
    if (!table || table.workspaceId !== request.workspaceId || standing?.role == null) {
      throw new AppError('NOT_FOUND', 'Table not found');
    }
    const row = await deps.repository.addRow(table.id, (properties) => {
      const idOf = new Map(properties.map((property) => [property.name, property.id]));
      const cells = Object.fromEntries(
        Object.entries(request.values).map(([key, value]) => [idOf.get(key) ?? key, value]),
      );
      checkCells(properties, cells);
      return cells;
    });
    if (!row) throw new AppError('NOT_FOUND', 'Table not found');
    return { row: rowBody(row) };
  };
}
