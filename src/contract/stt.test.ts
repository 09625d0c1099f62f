import { describe, expect, it } from 'vitest';
import { languageCodeOfName } from './stt.ts';

describe('languageCodeOfName', () => {
  it('knows the languages Whisper names beyond the 57 the AI SDK maps, in any case', () => {
    expect(['punjabi', 'Gujarati', 'telugu', 'malayalam', 'amharic', 'yoruba', 'haitian creole'].map(languageCodeOfName)).toEqual(['pa', 'gu', 'te', 'ml', 'am', 'yo', 'ht']);
  });

  it("knows Whisper's names where Intl's English says otherwise", () => {
    expect(['bengali', 'myanmar', 'nynorsk', 'maori', 'tagalog', 'cantonese'].map(languageCodeOfName)).toEqual(['bn', 'my', 'nn', 'mi', 'tl', 'zh']);
  });

  it('has no code for a language without a two-letter one, or for what is no language', () => {
    expect(['hawaiian', 'klingon', ''].map(languageCodeOfName)).toEqual([undefined, undefined, undefined]);
  });
});
