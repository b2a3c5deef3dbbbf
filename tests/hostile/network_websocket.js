// hostile: a WebSocket to the loopback listener
// expect: limit=none reason=forbidden global WebSocket
function setup() { createCanvas(600, 600, WEBGL); angleMode(DEGREES); }
function draw() { const ws = new WebSocket("ws://127.0.0.1:__PORT__/ws"); ws.onopen = () => ws.send("hi"); }
