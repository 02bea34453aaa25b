import { Button } from '../../../components';
import type { ToolCallView } from './turn-state';

export interface ToolCallCardProps {
  call: ToolCallView;
  /** True while this call runs in a live turn. */
  running: boolean;
  /** Given when the viewer may stop it (they started the turn). */
  onStop?: () => void;
  stopping?: boolean;
}

/** A tool the assistant called: its name, arguments, and its result once there is one. */
export function ToolCallCard({ call, running, onStop, stopping }: ToolCallCardProps) {
  return (
    <div className="tool-call" role="group" aria-label={`Tool call: ${call.name}`}>
      <p className="tool-call__title">
        <span>Tool</span> <code>{call.name}</code>{' '}
        <span className={`tool-call__state tool-call__state--${stateOf(call, running)}`}>
          {STATE_LABELS[stateOf(call, running)]}
        </span>
      </p>
      <p className="tool-call__label">Arguments</p>
      <pre className="tool-call__code">{call.argumentsText}</pre>
      {call.result && (
        <>
          <p className="tool-call__label">
            {call.result.cancelled ? 'Result (cancelled)' : 'Result'}
          </p>
          <pre className="tool-call__code">{call.result.text}</pre>
        </>
      )}
      {running && onStop && (
        <Button variant="danger" busy={stopping} onClick={onStop}>
          Stop tool
        </Button>
      )}
    </div>
  );
}

type ToolCallState = 'running' | 'cancelled' | 'error' | 'done' | 'unanswered';

const STATE_LABELS: Record<ToolCallState, string> = {
  running: 'Running…',
  cancelled: 'Cancelled',
  error: 'Failed',
  done: 'Done',
  unanswered: 'No result',
};

function stateOf(call: ToolCallView, running: boolean): ToolCallState {
  if (call.result === null) return running ? 'running' : 'unanswered';
  if (call.result.cancelled) return 'cancelled';
  return call.result.isError ? 'error' : 'done';
}
