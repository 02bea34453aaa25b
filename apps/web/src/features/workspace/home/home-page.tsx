import { useState } from 'react';
import { Navigate } from 'react-router';
import { EmptyState, ErrorMessage, LoadingState, PageHeader } from '../../../components';
import { appPaths, takeReturnPath } from '../../../lib/routing';
import { useMe } from '../api/workspace-api';
import { CreateWorkspaceForm } from '../create-workspace/create-workspace-form';

/**
 * `/app`, where signing in lands: back to the page that asked the person to sign in, else
 * their first workspace, or help to create one.
 */
export function HomePage() {
  const [returnPath] = useState(takeReturnPath);
  const me = useMe();
  if (returnPath) return <Navigate to={returnPath} replace />;
  if (me.isPending) return <LoadingState label="Loading your workspaces…" />;
  if (me.isError) return <ErrorMessage error={me.error} />;
  const [first] = me.data.workspaces;
  if (first) return <Navigate to={appPaths.workspace(first.id)} replace />;
  return (
    <>
      <PageHeader title={`Welcome, ${me.data.user.name}`} />
      <EmptyState title="Create your first workspace">
        <p>You are not in any workspace yet. Create one, or ask an owner to add you to theirs.</p>
        <CreateWorkspaceForm />
      </EmptyState>
    </>
  );
}
