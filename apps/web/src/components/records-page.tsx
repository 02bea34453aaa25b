import type { ReactNode } from 'react';
import { PageHeader } from './page-header';
import { Panel } from './panel';

/**
 * A workspace's list of records (tables, tasks, contacts): what they are for, the form that
 * adds one, and all of them, newest first.
 */
export function RecordsPage(props: {
  title: string;
  description: string;
  /** One record, as the form's title names it: "New table". */
  noun: string;
  createForm: ReactNode;
  list: ReactNode;
}) {
  return (
    <>
      <PageHeader title={props.title} description={props.description} />
      <Panel title={`New ${props.noun}`}>{props.createForm}</Panel>
      <Panel title={`All ${props.title.toLowerCase()}`}>{props.list}</Panel>
    </>
  );
}
