// Updates through electron-updater and the GitHub release feed (app-update.yml, written by electron-builder).
// Thin on purpose: when to check, what counts as offline and what the window shows are in update-policy.ts.
import { app } from 'electron';
import type { AppUpdater } from 'electron-updater';
import type { UpdateStatus } from './channels.js';
import { CHECK_TICK_MS, isCheckDue, loadUpdateSettings, nextStatus, releaseNotesText, saveUpdateSettings, updatesUnsupported, type UpdateEvent, type UpdateSettings } from './update-policy.js';

export class Updates {
  private status: UpdateStatus;
  private settings: UpdateSettings;
  private updater: AppUpdater | null = null;
  private lastCheck: number | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly settingsFile: string,
    private readonly changed: (status: UpdateStatus) => void,
  ) {
    this.status = updatesUnsupported({ isPackaged: app.isPackaged, platform: process.platform, appImage: process.env['APPIMAGE'] }) ?? { state: 'idle' };
    this.settings = loadUpdateSettings(settingsFile);
  }

  get current(): UpdateStatus {
    return this.status;
  }

  get supported(): boolean {
    return this.status.state !== 'unsupported';
  }

  get automatic(): boolean {
    return this.settings.checkAutomatically;
  }

  /** Check now if checks are on, then whenever 12 hours have passed (also after the computer slept). */
  start(): void {
    if (!this.supported || this.timer) return;
    this.timer = setInterval(() => this.tick(), CHECK_TICK_MS);
    this.tick();
  }

  setAutomatic(enabled: boolean): boolean {
    this.settings = { ...this.settings, checkAutomatically: enabled };
    saveUpdateSettings(this.settingsFile, this.settings);
    this.tick();
    return enabled;
  }

  async check(askedByUser: boolean): Promise<UpdateStatus> {
    if (!this.supported) return this.status;
    this.lastCheck = Date.now();
    this.apply({ type: 'checking', askedByUser });
    try {
      const result = await (await this.load()).checkForUpdates();
      const info = result?.isUpdateAvailable ? result.updateInfo : undefined;
      if (info) this.apply({ type: 'available', version: info.version, releaseNotes: releaseNotesText(info.releaseNotes), ...(info.releaseDate ? { releaseDate: info.releaseDate } : {}) });
      else this.apply({ type: 'not-available', askedByUser });
    } catch (error) {
      this.apply({ type: 'error', error, askedByUser, duringDownload: false });
    }
    return this.status;
  }

  /** Download the update the user chose; electron-updater checks its SHA-512 from latest*.yml. */
  async download(): Promise<UpdateStatus> {
    const status = this.status;
    if (status.state !== 'available') return status;
    this.apply({ type: 'progress', percent: 0 });
    try {
      await (await this.load()).downloadUpdate();
      this.apply({ type: 'downloaded', version: status.version });
    } catch (error) {
      this.apply({ type: 'error', error, askedByUser: true, duringDownload: true });
    }
    return this.status;
  }

  /** Quit and install; the app's will-quit handler stops the hub first, and the new version starts. */
  install(): void {
    if (this.status.state === 'ready' && this.updater) this.updater.quitAndInstall(true, true);
  }

  private tick(): void {
    if (this.supported && this.settings.checkAutomatically && isCheckDue(this.lastCheck, Date.now())) void this.check(false);
  }

  private apply(event: UpdateEvent): void {
    const next = nextStatus(this.status, event);
    if (next === this.status) return;
    this.status = next;
    this.changed(next);
  }

  private async load(): Promise<AppUpdater> {
    if (this.updater) return this.updater;
    // Loaded only where updates are supported: electron-updater reads app-update.yml from the packaged app.
    const updater = (await import('electron-updater')).default.autoUpdater;
    updater.autoDownload = false;
    updater.autoInstallOnAppQuit = true;
    updater.allowPrerelease = false;
    updater.on('download-progress', (progress: { percent: number }) => this.apply({ type: 'progress', percent: progress.percent }));
    // The same failure also rejects the call that caused it (handled there); without a listener an 'error' event would throw.
    updater.on('error', () => undefined);
    this.updater = updater;
    return updater;
  }
}
