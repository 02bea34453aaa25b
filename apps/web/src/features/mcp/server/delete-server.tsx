import { useId, useRef } from 'react';
import { useNavigate } from 'react-router';
import type { McpServerView } from '@wap/contracts';
import { Button, ErrorMessage } from '../../../components';
import { appPaths } from '../../../lib/routing';
import { useDeleteMcpServer } from '../api/mcp-api';
import type { DeletedServerState } from '../list/mcp-servers-page';

/** "Delete server", confirmed in a modal dialog (Escape or Cancel keeps the server). */
export function DeleteServer(props: { workspaceId: string; server: McpServerView }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const remove = useDeleteMcpServer(props.workspaceId, props.server.id);
  const navigate = useNavigate();
  const close = () => {
    remove.reset();
    dialog.current?.close();
  };
  const confirm = () =>
    remove.mutate(undefined, {
      onSuccess: () => {
        dialog.current?.close();
        const state: DeletedServerState = { deletedServerName: props.server.name };
        void navigate(appPaths.workspace(props.workspaceId, 'mcp'), { state });
      },
    });
  return (
    <>
      <Button variant="danger" onClick={() => dialog.current?.showModal()}>
        Delete server
      </Button>
      <dialog ref={dialog} className="mcp-dialog" aria-labelledby={titleId} onClose={close}>
        <h2 id={titleId}>Delete {props.server.name}?</h2>
        <p>
          Its tools stop being offered to the assistant and to workflows at once, and workflow steps
          that use them will fail. This cannot be undone.
        </p>
        {remove.isError && <ErrorMessage error={remove.error} />}
        <p className="button-row">
          <Button autoFocus onClick={close}>
            Cancel
          </Button>
          <Button variant="danger" busy={remove.isPending} onClick={confirm}>
            Delete
          </Button>
        </p>
      </dialog>
    </>
  );
}
