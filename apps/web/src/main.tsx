import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/app';
import { focusFailedSubmissions } from './lib/forms';
import './styles/tokens.css';
import './styles/base.css';

const container = document.getElementById('root');
if (!container) throw new Error('index.html has no #root element');
focusFailedSubmissions(document);
createRoot(container).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
