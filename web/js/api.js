// The one way pages talk to the server: JSON over /api/v1, with the token
// kept in localStorage (if any) as a Bearer header.

const TOKEN_KEY = 'regtrack.token';

export class ApiError extends Error {
	constructor(status, code, message, field) {
		super(message);
		this.status = status;
		this.code = code;
		this.field = field;
	}
}

export function getToken() {
	try {
		return localStorage.getItem(TOKEN_KEY) || '';
	} catch {
		return '';
	}
}

export function setToken(t) {
	if (t)
		localStorage.setItem(TOKEN_KEY, t);
	else
		localStorage.removeItem(TOKEN_KEY);
}

// api('/series', {query: {...}}) -> parsed JSON, or throws ApiError.
// optional: true turns "no such endpoint" (a server without that API yet)
// into a null result instead of an error.
export async function api(path, { method = 'GET', query, body, optional = false, text = false } = {}) {
	const url = new URL('/api/v1' + path, location.origin);
	for (const [k, v] of Object.entries(query || {}))
		if (v !== null && v !== undefined && v !== '')
			url.searchParams.set(k, typeof v === 'object' ? JSON.stringify(v) : String(v));
	const headers = { Accept: text ? 'text/plain' : 'application/json' };
	const token = getToken();
	if (token)
		headers.Authorization = 'Bearer ' + token;
	if (body !== undefined)
		headers['Content-Type'] = 'application/json';
	let resp;
	try {
		resp = await fetch(url, {
			method, headers, body: body === undefined ? undefined : JSON.stringify(body),
		});
	} catch (e) {
		throw new ApiError(0, 'network', `cannot reach the server: ${e.message}`);
	}
	const raw = await resp.text();
	if (resp.ok) {
		if (text)
			return raw;
		return raw ? JSON.parse(raw) : null;
	}
	let err = null;
	try {
		err = JSON.parse(raw).error;
	} catch {
		/* not JSON: keep the status line */
	}
	if (optional && resp.status === 404 && err && /^no such endpoint/.test(err.message || ''))
		return null;
	throw new ApiError(resp.status, err ? err.code : 'http',
		err ? `${err.message}${err.detail ? ' (' + err.detail + ')' : ''}`
			: `${resp.status} ${resp.statusText}`, err ? err.field : null);
}

// Like api() but a missing endpoint or any error returns {error} instead of
// throwing, for overview panels that must not take the page down.
export async function tryApi(path, opts = {}) {
	try {
		const data = await api(path, { ...opts, optional: true });
		return data === null ? { missing: true } : { data };
	} catch (e) {
		return { error: e };
	}
}
