import { mount } from 'svelte';
import App from './App.svelte';
import { followDesktopMenu } from './lib/desktop-bridge';
import { go } from './lib/nav.svelte';
import './app.css';

mount(App, { target: document.getElementById('app')! });
// In the desktop app the Go menu (Ctrl/Cmd+1…9) navigates the workbench; in a browser this is a no-op.
followDesktopMenu((view) => go(view));
