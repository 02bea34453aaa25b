import Markdown, { type Components } from 'react-markdown';

/** Links in a reply open outside the app and tell the target page nothing about it. */
const COMPONENTS: Components = {
  a: ({ node: _node, ...props }) => <a {...props} target="_blank" rel="noopener noreferrer" />,
};

/**
 * A message's text as Markdown (CommonMark: emphasis, lists, code, links). HTML inside it is
 * never rendered, only dropped (`skipHtml`), and react-markdown's URL filter keeps `javascript:`
 * and other unsafe links out: a reply or a pasted message cannot inject markup.
 */
export function MarkdownText(props: { text: string }) {
  return (
    <Markdown skipHtml components={COMPONENTS}>
      {props.text}
    </Markdown>
  );
}
