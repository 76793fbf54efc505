// The console: sign-in until a working key is kept, then the page the path names.
import type { ConduitClient } from '@conduit/sdk';
import { Suspense, useEffect, useState } from 'react';
import { ProjectsPage } from './pages/projects-page.js';
import {
  ConnectorPage,
  ConnectorsPage,
  JobPage,
  MonitoringPage,
  PipelinePage,
  ProjectPage,
  RunPage,
  WebhooksPage,
} from './routing/page-chunks.js';
import { PageLoadBoundary } from './routing/page-load-boundary.js';
import { Link, Router, useNavigation } from './routing/router.js';
import { paths } from './routing/routes.js';
import { identify, type Identity } from './session/identity.js';
import { clientFor, forgetApiKey, storeApiKey, storedApiKey } from './session/session.js';
import { SessionContext, useSession, type Session } from './session/session-context.js';
import { SignInPage } from './session/sign-in-page.js';
import { Empty, Loading } from './ui/states.js';

export interface AppProps {
  /** Where the API is; default the origin that served the console. */
  baseUrl?: string;
}

export function App({ baseUrl }: AppProps) {
  const [session, setSession] = useState<{ client: ConduitClient; identity: Identity }>();
  const [resuming, setResuming] = useState(() => storedApiKey() !== undefined);

  const signIn = async (apiKey: string) => {
    const client = clientFor(apiKey, baseUrl);
    const identity = await identify(client);
    storeApiKey(apiKey);
    setSession({ client, identity });
  };
  const signOut = () => {
    forgetApiKey();
    setSession(undefined);
  };

  // A reload keeps the tab's session: the kept key is checked again; a key that stopped working is forgotten.
  useEffect(() => {
    const kept = storedApiKey();
    if (kept === undefined) return;
    signIn(kept)
      .catch(() => forgetApiKey())
      .finally(() => setResuming(false));
    // Once, at start.
  }, []);

  if (resuming) return <Loading what="your session" />;
  if (!session) return <SignInPage onSignIn={signIn} />;
  const value: Session = { ...session, signOut };
  return (
    <SessionContext value={value}>
      <Router>
        <Shell />
      </Router>
    </SessionContext>
  );
}

function Shell() {
  const { identity, signOut } = useSession();
  const { route } = useNavigation();
  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <Link to={paths.projects()} className="brand">
          Conduit
        </Link>
        <nav aria-label="Sections" className="sections">
          <Link to={paths.projects()}>Projects</Link>
          <Link to={paths.connectors()}>Connectors</Link>
          <Link to={paths.monitoring()}>Monitoring</Link>
          <Link to={paths.webhooks()}>Webhooks</Link>
        </nav>
        <span className="who">
          Signed in to <strong data-testid="tenant">{identity.tenant}</strong> ({identity.scopes.join(', ')})
        </span>
        <a href="/docs">API docs</a>
        <button type="button" className="secondary" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        <PageLoadBoundary routeKey={JSON.stringify(route)}>
          <Suspense fallback={<Loading what="the page" />}>
            <Page />
          </Suspense>
        </PageLoadBoundary>
      </main>
    </>
  );
}

function Page() {
  const { route } = useNavigation();
  switch (route.page) {
    case 'projects':
      return <ProjectsPage />;
    case 'project':
      return <ProjectPage projectId={route.projectId} />;
    case 'pipeline':
      return <PipelinePage pipelineId={route.pipelineId} />;
    case 'job':
      return <JobPage jobId={route.jobId} />;
    case 'run':
      return <RunPage jobId={route.jobId} runId={route.runId} />;
    case 'connectors':
      return <ConnectorsPage />;
    case 'new-connector':
      return <ConnectorPage />;
    case 'connector':
      return <ConnectorPage connectorId={route.connectorId} />;
    case 'monitoring':
      return <MonitoringPage />;
    case 'webhooks':
      return <WebhooksPage />;
    case 'not-found':
      return (
        <Empty>
          <h1>No such page</h1>
          <p>
            Nothing lives at <code>{route.path}</code>. <Link to={paths.projects()}>Go to the projects</Link>.
          </p>
        </Empty>
      );
  }
}
