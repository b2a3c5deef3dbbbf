// many small dark and light dabs, layered
function setup() {
  createCanvas(600, 600, WEBGL);
  angleMode(DEGREES);
  noLoop();
}

function draw() {
  translate(-width / 2, -height / 2);
  background("#ffffff");
  randomSeed(4);
  brush.noStroke();
  const cols = ["#0b3954", "#087e8b", "#bfd7ea", "#ff5a5f", "#c81d25"];
  for (let i = 0; i < 24; i++) {
    brush.fill(cols[i % cols.length], 60 + (i * 37) % 150);
    brush.fillBleed(0.05 + (i % 4) * 0.05);
    brush.fillTexture(0.5, 0.5);
    brush.circle(60 + (i % 6) * 96, 80 + Math.floor(i / 6) * 140, 28 + (i % 5) * 6);
  }
}
