import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { canWrite } from './api';
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

function current(): string {
  return location.hash.replace(/^#\/?/, '') || 'mappings';
}

function App() {
  const [id, setId] = useState(current());
  useEffect(() => {
    const follow = () => setId(current());
    addEventListener('hashchange', follow);
    return () => removeEventListener('hashchange', follow);
  }, []);
  const pages = PAGES.filter((page) => canWrite || !page.write);
  const shown = pages.find((page) => page.id === id) ?? pages[0];
  const Page = shown.page;
  return (
    <>
      <header>
        <h1>adapter-engine studio</h1>
        <nav aria-label="Pages">
          {pages.map((page) => (
            <a key={page.id} href={`#/${page.id}`} aria-current={page.id === shown.id ? 'page' : undefined}>{page.title}</a>
          ))}
        </nav>
      </header>
      <main id="page" aria-label={shown.title}>
        <Page />
      </main>
    </>
  );
}

render(<App />, document.getElementById('app') as HTMLElement);
