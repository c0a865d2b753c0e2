import fs from 'node:fs';
import path from 'node:path';
import { framesPath, framesSource } from './frames-source.js';
import { documentPath, serverDocument, typesOf, typesPath } from './openapi-document.js';

/**
 * Writes packages/client/openapi.json and src/generated/openapi.d.ts from the server's own routes, and
 * src/generated/frames.ts (the stream's frame types) from the server's event catalogue.
 */
const document = await serverDocument();
const types = await typesOf(document);
const frames = framesSource();
fs.mkdirSync(path.dirname(typesPath), { recursive: true });
fs.writeFileSync(documentPath, document);
fs.writeFileSync(typesPath, types);
fs.writeFileSync(framesPath, frames);
const written = [documentPath, typesPath, framesPath].map((file) => path.relative(process.cwd(), file));
console.log(`wrote ${written.join(', ')}`);
