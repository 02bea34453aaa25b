import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { ErrorMessage, LoadingState, PageHeader } from '../../../components';
import { useWorkspaceId } from '../../../lib/routing';
import { useCreateWorkflow, useStepTypes } from '../api/workflows-api';
import { workflowPaths } from '../shared/workflow-frame';
import '../workflows.css';
import { newDraft } from './workflow-draft';
import { WorkflowForm, type WorkflowFields } from './workflow-form';

/** Creates a workflow in draft with its name, trigger, steps and running hours. */
export function NewWorkflowPage() {
  const workspaceId = useWorkspaceId();
  const navigate = useNavigate();
  const stepTypes = useStepTypes();
  const create = useCreateWorkflow();
  const [initial] = useState(newDraft);

  const save = async (fields: WorkflowFields) => {
    const created = await create.mutateAsync({ workspaceId, ...fields });
    await navigate(workflowPaths.editor(workspaceId, created.workflow.id), {
      state: { created: true },
    });
    return created.workflow;
  };
  return (
    <>
      <p className="wf-breadcrumb">
        <Link to={workflowPaths.list(workspaceId)}>All workflows</Link>
      </p>
      <PageHeader
        title="New workflow"
        description="It starts in draft with its own webhook address: capture a test event, Run it, then set it live."
      />
      {stepTypes.isPending && <LoadingState label="Loading the step types…" />}
      {stepTypes.isError && <ErrorMessage error={stepTypes.error} />}
      {stepTypes.data && (
        <WorkflowForm
          initial={initial}
          stepTypes={stepTypes.data.step_types}
          workspaceId={workspaceId}
          submitLabel="Create workflow"
          save={save}
        />
      )}
    </>
  );
}
