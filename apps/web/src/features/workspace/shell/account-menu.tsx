import { Link } from 'react-router';
import { Button, ErrorMessage } from '../../../components';
import { appPaths } from '../../../lib/routing';
import { useMe, useSignOut } from '../api/workspace-api';

/** Who is signed in, and the way out. */
export function AccountMenu() {
  const me = useMe();
  const signOut = useSignOut();
  const signOutEverywhere = useSignOut('everywhere');
  return (
    <div className="account-menu">
      {me.data && <span className="account-menu__email">{me.data.user.email}</span>}
      {me.data?.platform_admin && (
        <Link className="account-menu__link" to={appPaths.grantCredits()}>
          Grant credits
        </Link>
      )}
      <Link className="account-menu__link" to={appPaths.extensions()}>
        Extensions
      </Link>
      <Button busy={signOut.isPending} onClick={() => signOut.mutate()}>
        Sign out
      </Button>
      <Button busy={signOutEverywhere.isPending} onClick={() => signOutEverywhere.mutate()}>
        Sign out everywhere
      </Button>
      {signOut.isError && <ErrorMessage error={signOut.error} />}
      {signOutEverywhere.isError && <ErrorMessage error={signOutEverywhere.error} />}
    </div>
  );
}
