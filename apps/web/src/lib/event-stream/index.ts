export { useEventStream } from './use-event-stream';
export { type EventStreamStatus, type StreamEvent } from './stream-events';
