// The server's NDJSON streams (the Board API's event and game streams, a watcher's
// stream) read line by line, for the lobby and the play page: each JSON object is given
// to each(object); keep-alive lines are skipped.  It ends when the stream does, or when
// each(…) answers false (the page is leaving).
async function ndjsonLines(response, each) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    text += decoder.decode(value, { stream: true });
    let cut;
    while ((cut = text.indexOf("\n")) >= 0) {
      const line = text.slice(0, cut).trim();
      text = text.slice(cut + 1);
      if (line && (await each(JSON.parse(line))) === false) return;
    }
  }
}
