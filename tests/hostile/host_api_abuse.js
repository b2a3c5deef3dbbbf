// hostile: calls the sandbox host API itself to wipe its records after cheating
// expect: limit=none reason=__aq_host|host API
function setup() { createCanvas(600, 600, WEBGL); angleMode(DEGREES); }
function draw() {
  text("cheat", 0, 0);
  __aq_host.init('{"seed":0,"maxCommands":1,"static":[]}');
}
