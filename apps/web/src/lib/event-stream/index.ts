export { useEventStream, type EventStreamOptions, type EventStreamState } from './use-event-stream';
export {
  decodeStreamEvent,
  nextEventStreamStatus,
  type EventStreamStatus,
  type StreamEvent,
} from './stream-events';
