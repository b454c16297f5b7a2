import '@xyflow/react/dist/style.css';
import './styles/base.css';
import './styles/editor.css';
import './styles/run.css';
import './styles/state.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import App from './App';

const root = document.getElementById('root');
if (!root) throw new Error('index.html must have an element with id "root"');

createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
