import fs from 'node:fs';
import path from 'node:path';
import { documentPath, serverDocument, typesOf, typesPath } from './openapi-document.js';

/** Writes packages/client/openapi.json and src/generated/openapi.d.ts from the server's own routes. */
const document = await serverDocument();
const types = await typesOf(document);
fs.mkdirSync(path.dirname(typesPath), { recursive: true });
fs.writeFileSync(documentPath, document);
fs.writeFileSync(typesPath, types);
console.log(`wrote ${path.relative(process.cwd(), documentPath)} and ${path.relative(process.cwd(), typesPath)}`);
