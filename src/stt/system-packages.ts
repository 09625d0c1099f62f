/**
 * @module The Debian packages the local speech engine runs on, and the error that names a missing one.
 * One apt command installs them all, so every message gives that same command.
 */
import { missingPackage } from '../contract/stt.ts';

export const INSTALL_COMMAND = 'apt-get install -y pocketsphinx pocketsphinx-en-us ffmpeg';

/** What each package provides, as the user will read it. */
const PROVIDES = {
  ffmpeg: 'the audio decoder (ffmpeg)',
  'pocketsphinx-en-us': 'the English speech model',
  libpocketsphinx3: 'the PocketSphinx speech recogniser library (installed with pocketsphinx)',
} as const;

export type SystemPackage = keyof typeof PROVIDES;

function missingPackageMessage(name: SystemPackage): string {
  return `Speech-to-text (local engine) needs the Debian package ${name}: ${PROVIDES[name]} was not found. Install it with: ${INSTALL_COMMAND}`;
}

export function missingPackageError(name: SystemPackage) {
  return missingPackage(name, missingPackageMessage(name), INSTALL_COMMAND);
}
