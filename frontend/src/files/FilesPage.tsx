import { FileBrowser } from './FileBrowser';

/** Data in from the browser: the directories granted to you, their files, previews and uploads. */
export function FilesPage() {
  return (
    <main className="list-page files-page" data-testid="files-page">
      <div className="list-page__heading">
        <h1>Files</h1>
      </div>
      <p className="muted">
        Upload input files into a directory granted to you (your own is created with the first upload); file, Parquet and hybrid sources
        pick them from the editor with <em>Browse files…</em>.
      </p>
      <FileBrowser />
    </main>
  );
}
