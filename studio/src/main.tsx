import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { canEdit, setAdminToken } from './api';
import { askBeforeLeaving, createDrafts, DraftsContext } from './drafts';
import { EditorPage } from './editor';
import { MappingsPage } from './mappings';
import { OutboxPage } from './outbox';
import { RequestsPage } from './requests';
import { TestsPage } from './tests';
import { TryPage } from './try';
import './app.css';

/** The pages, by the hash of the address (#/try): the back button and links work, nothing reloads. */
const PAGES = [
  { id: 'mappings', title: 'Mappings', page: MappingsPage, write: false },
  { id: 'editor', title: 'Editor', page: EditorPage, write: true },
  { id: 'try', title: 'Try a route', page: TryPage, write: true },
  { id: 'tests', title: 'Tests', page: TestsPage, write: true },
  { id: 'requests', title: 'Requests', page: RequestsPage, write: false },
  { id: 'outbox', title: 'Outbox', page: OutboxPage, write: false },
] as const;

/** The page of the address: its first part (`#/editor/<file>:<line>` is the Editor at a place). */
function current(): string {
  return location.hash.replace(/^#\/?/, '').split('/')[0] || 'mappings';
}

/**
 * serve's admin port: the API needs one of the server's admin tokens (ADMIN_TOKENS in its environment),
 * kept for this tab only (sessionStorage); then the page again.
 */
function AdminToken() {
  const [value, setValue] = useState('');
  return (
    <section class="admin-token" aria-label="Admin token needed">
      <h2>This studio needs an admin token</h2>
      <p>
        It is served on the admin port of <code>adapter-engine serve</code>, whose API answers only with one of the
        tokens in the server's <code>ADMIN_TOKENS</code> environment variable. Ask whoever runs the server for one.
        The page keeps it for this browser tab only.
      </p>
      <form onSubmit={(event) => { event.preventDefault(); setAdminToken(value); location.reload(); }}>
        <label>Admin token <input type="password" autocomplete="off" value={value} onInput={(event) => setValue((event.target as HTMLInputElement).value)} /></label>
        <button type="submit" disabled={value === ''}>Use</button>
      </form>
    </section>
  );
}

function App() {
  const [id, setId] = useState(current());
  const [asking, setAsking] = useState(false);
  const [drafts] = useState(createDrafts);
  useEffect(() => askBeforeLeaving(drafts), [drafts]);
  useEffect(() => {
    const ask = () => setAsking(true);
    addEventListener('studio-needs-admin-token', ask);
    return () => removeEventListener('studio-needs-admin-token', ask);
  }, []);
  useEffect(() => {
    const follow = () => setId(current());
    addEventListener('hashchange', follow);
    return () => removeEventListener('hashchange', follow);
  }, []);
  const pages = PAGES.filter((page) => canEdit || !page.write);
  const shown = pages.find((page) => page.id === id) ?? pages[0];
  const Page = shown.page;
  return (
    <DraftsContext.Provider value={drafts}>
      <header>
        <h1>adapter-engine studio</h1>
        <nav aria-label="Pages">
          {pages.map((page) => (
            <a key={page.id} href={`#/${page.id}`} aria-current={page.id === shown.id ? 'page' : undefined}>{page.title}</a>
          ))}
        </nav>
      </header>
      {asking && <AdminToken />}
      <main id="page" aria-label={shown.title}>
        <Page />
      </main>
    </DraftsContext.Provider>
  );
}

render(<App />, document.getElementById('app') as HTMLElement);
