/** Shown while data loads; announced once to screen readers. */
export function LoadingState(props: { label?: string }) {
  return (
    <div className="loading-state" role="status">
      <span className="loading-state__spinner" aria-hidden="true" />
      {props.label ?? 'Loading…'}
    </div>
  );
}
