import { useState, type FormEvent } from 'react';
import { useSearchParams } from 'react-router';
import { AddMemberBody } from '@wap/contracts';
import {
  Button,
  ErrorMessage,
  LoadingState,
  PageHeader,
  Panel,
  TextField,
} from '../../../components';
import { validateForm, type FieldErrors } from '../../../lib/forms';
import { useSignInMethod } from '../api/workspace-api';

/** The email a person signs in with, checked as the platform checks a member's email. */
const SignInForm = AddMemberBody.pick({ email: true });

export function SignInPage() {
  const [searchParams] = useSearchParams();
  const method = useSignInMethod();
  return (
    <>
      <PageHeader title="Sign in" description="Chats, workflows and tools for your workspaces." />
      {searchParams.get('expired') === '1' && (
        <div className="notice notice--error" role="alert">
          <p>Your session has expired. Sign in again.</p>
        </div>
      )}
      {method.isPending && <LoadingState label="Loading sign-in…" />}
      {method.isError && <ErrorMessage error={method.error} />}
      {method.data?.method === 'development' && <DevelopmentSignIn />}
      {method.data?.method === 'sign_in_link' && (
        <Panel title="Sign in with a link">
          <p>
            This platform signs people in with one-time links. Ask an operator for one (
            <code>npm run admin -- sign-in-link you@example.com</code>); it works once, for ten
            minutes.
          </p>
        </Panel>
      )}
      {method.data?.method === 'identity_provider' && (
        <Panel title="Sign in with your organisation">
          <p>
            Sign-in happens at your organisation&apos;s identity provider. Open the sign-in address
            your administrator gave you; it signs you in and brings you back here.
          </p>
        </Panel>
      )}
    </>
  );
}

/**
 * The development sign-in: the browser itself goes to `GET /dev/sign-in?email=...`, which sets
 * the session cookie and redirects to `/`, so nothing here handles a token.
 */
function DevelopmentSignIn() {
  const [email, setEmail] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const check = (event: FormEvent<HTMLFormElement>) => {
    const result = validateForm(SignInForm, { email });
    if (!result.ok) {
      event.preventDefault();
      setErrors(result.errors);
    }
  };
  return (
    <Panel
      title="Development sign-in"
      description="This platform runs in development mode: any email signs in, no password."
    >
      <form method="get" action="/dev/sign-in" noValidate onSubmit={check}>
        <TextField
          label="Email"
          name="email"
          type="email"
          autoComplete="email"
          value={email}
          error={errors['email']}
          onChange={(event) => setEmail(event.target.value)}
        />
        <Button type="submit" variant="primary">
          Sign in
        </Button>
      </form>
    </Panel>
  );
}
