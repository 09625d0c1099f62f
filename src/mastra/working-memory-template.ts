/**
 * @module The working-memory template: what the companion keeps about a person across their threads (Mastra's
 * default template asks for a last name, an occupation, projects, "facts" and "events"): what helps it be their
 * companion. What it keeps out is in the shared rules (personalities.ts).
 */
export const WORKING_MEMORY_TEMPLATE = `# About the person
- **Name** (what they like to be called):
- **Where they live or travel**:
- **Traditions and practices** they follow or are curious about:
- **Places** they would like to visit, or have visited:
- **Preferences** (the voice they like, how long answers should be, topics to avoid):
- **Ongoing** (plans or questions they are in the middle of):
`;
