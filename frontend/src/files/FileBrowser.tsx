import '../styles/dataIn.css';
import { useCallback, useEffect, useRef, useState } from 'react';
import { dataIn, formatBytes, type FileListing, type FilePlace, type FilePreview } from '../api/dataIn';
import { classNames } from '../ui/classNames';

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function PreviewPane({ preview }: { preview: FilePreview }) {
  return (
    <div className="file-preview" data-testid="file-preview">
      <h3>
        {preview.name} <span className="muted">{formatBytes(preview.size)}</span>
      </h3>
      {preview.kind === 'text' && <pre className="file-preview__text">{(preview.lines ?? []).join('\n')}</pre>}
      {preview.kind === 'parquet' && (
        <div className="table-scroll">
          <p className="muted">
            {preview.num_rows} rows · {(preview.columns ?? []).map((column) => `${String(column.name)}: ${String(column.type)}`).join(', ')}
          </p>
          <table className="data-table">
            <thead>
              <tr>
                {(preview.columns ?? []).map((column) => (
                  <th key={String(column.name)}>{String(column.name)}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {(preview.rows ?? []).map((row, index) => (
                <tr key={index}>
                  {(preview.columns ?? []).map((column) => (
                    <td key={String(column.name)}>{JSON.stringify(row[String(column.name)])}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {preview.truncated && <p className="muted">(the beginning only)</p>}
    </div>
  );
}

interface FileBrowserProps {
  /** Offered as "Use" on files and directories when set (a source form's path picker). */
  onPick?: (path: string) => void;
}

/**
 * The local directories granted to the user: their files with sizes, a preview, uploads into the
 * directory shown (created on demand), and, in a source form, picking a path.
 */
export function FileBrowser({ onPick }: FileBrowserProps) {
  const [places, setPlaces] = useState<FilePlace[] | null>(null);
  const [place, setPlace] = useState<string>('');
  const [directory, setDirectory] = useState('');
  const [listing, setListing] = useState<FileListing | null>(null);
  const [preview, setPreview] = useState<FilePreview | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [newDirectory, setNewDirectory] = useState('');
  const chooser = useRef<HTMLInputElement>(null);

  useEffect(() => {
    dataIn.listPlaces().then(
      (found) => {
        setPlaces(found);
        setPlace((current) => current || (found.find((candidate) => candidate.writable)?.name ?? found[0]?.name ?? ''));
      },
      (failure: unknown) => setError(messageOf(failure)),
    );
  }, []);

  const load = useCallback(() => {
    if (!place) return;
    setError(null);
    dataIn.listDirectory(place, directory).then(setListing, (failure: unknown) => setError(messageOf(failure)));
  }, [place, directory]);
  useEffect(load, [load]);

  const current = places?.find((candidate) => candidate.name === place);
  const target = [directory, newDirectory.trim()].filter(Boolean).join('/');

  async function upload(files: FileList | null) {
    if (!files || !place) return;
    setError(null);
    for (const file of Array.from(files)) {
      setStatus(`Uploading ${file.name} (${formatBytes(file.size)})…`);
      try {
        const uploaded = await dataIn.uploadFile(place, target, file);
        setStatus(`Uploaded ${uploaded.name} (${formatBytes(uploaded.size)}) to ${uploaded.path}`);
      } catch (failure) {
        setStatus(null);
        setError(`${file.name}: ${messageOf(failure)}`);
        return;
      }
    }
    if (chooser.current) chooser.current.value = '';
    setNewDirectory('');
    if (target !== directory) setDirectory(target);
    else load();
  }

  async function show(name: string) {
    setPreview(null);
    try {
      setPreview(await dataIn.previewFile(place, [directory, name].filter(Boolean).join('/')));
    } catch (failure) {
      setError(messageOf(failure));
    }
  }

  const crumbs = directory ? directory.split('/') : [];
  return (
    <div className="file-browser" data-testid="file-browser">
      {places && places.length === 0 && <p className="muted">No local directory is granted to you; ask an administrator.</p>}
      {places && places.length > 0 && (
        <div className="file-browser__bar">
          <select
            className="input"
            data-testid="file-place"
            value={place}
            onChange={(event) => {
              setPlace(event.target.value);
              setDirectory('');
              setPreview(null);
            }}
          >
            {places.map((candidate) => (
              <option key={candidate.name} value={candidate.name}>
                {candidate.name}
                {candidate.writable ? '' : ' (read only)'}
              </option>
            ))}
          </select>
          <nav className="file-browser__crumbs" aria-label="directory">
            <button type="button" className="link-button" onClick={() => setDirectory('')}>
              {current?.root ?? place}
            </button>
            {crumbs.map((crumb, index) => (
              <span key={index}>
                {' / '}
                <button type="button" className="link-button" onClick={() => setDirectory(crumbs.slice(0, index + 1).join('/'))}>
                  {crumb}
                </button>
              </span>
            ))}
          </nav>
          {onPick && listing && (
            <button type="button" className="button" data-testid="file-pick-directory" onClick={() => onPick(listing.path)}>
              Use this directory
            </button>
          )}
        </div>
      )}
      {current?.writable && (
        <div className="file-browser__upload">
          <label className="form-field__label" htmlFor="file-upload-input">
            Upload into
          </label>
          <code>{directory || '.'}/</code>
          <input className="input file-browser__subdirectory" data-testid="file-upload-directory" placeholder="new sub-directory (optional)" value={newDirectory} onChange={(event) => setNewDirectory(event.target.value)} />
          <input id="file-upload-input" ref={chooser} type="file" multiple data-testid="file-upload" onChange={(event) => void upload(event.target.files)} />
        </div>
      )}
      {status && (
        <p className="muted" role="status" data-testid="file-upload-status">
          {status}
        </p>
      )}
      {error && <p className="error-text" data-testid="file-browser-error">{error}</p>}
      {listing && (
        <table className="data-table file-table">
          <thead>
            <tr>
              <th>Name</th>
              <th className="numeric">Size</th>
              <th>Modified</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {!listing.exists && (
              <tr>
                <td colSpan={4} className="muted">
                  This directory does not exist yet: an upload creates it.
                </td>
              </tr>
            )}
            {listing.exists && listing.entries.length === 0 && (
              <tr>
                <td colSpan={4} className="muted">
                  Empty.
                </td>
              </tr>
            )}
            {listing.entries.map((entry) => (
              <tr key={entry.name} data-testid="file-entry" data-name={entry.name} className={classNames(!entry.data && 'is-hidden-file')}>
                <td>
                  {entry.kind === 'directory' ? (
                    <button type="button" className="link-button" data-testid="file-open-directory" onClick={() => setDirectory([directory, entry.name].filter(Boolean).join('/'))}>
                      📁 {entry.name}/
                    </button>
                  ) : entry.kind === 'file' ? (
                    <button type="button" className="link-button" data-testid="file-open" onClick={() => void show(entry.name)}>
                      {entry.name}
                    </button>
                  ) : (
                    <span className="muted" title="links are not followed">
                      {entry.name} ({entry.kind})
                    </span>
                  )}
                  {!entry.data && entry.kind === 'file' && <span className="muted"> · not read by file sources</span>}
                </td>
                <td className="numeric">{formatBytes(entry.size)}</td>
                <td>{new Date(entry.modified).toLocaleString()}</td>
                <td>
                  {onPick && (entry.kind === 'file' || entry.kind === 'directory') && (
                    <button type="button" className="button" data-testid="file-pick" onClick={() => onPick(entry.path)}>
                      Use
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {preview && <PreviewPane preview={preview} />}
    </div>
  );
}
