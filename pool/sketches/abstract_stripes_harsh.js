async function setup() {
  createCanvas(600, 600, WEBGL);
  brush.scaleBrushes(1.5);
  angleMode(DEGREES);
  noLoop();
}

function draw() {
  translate(-width / 2, -height / 2);
  background("#fffceb");
  randomSeed(373);

  brush.noStroke();
  brush.fillBleed(0);
  brush.fillTexture(0, 0);
  const cols = ["#ff0000", "#00ff00", "#0000ff", "#ffff00", "#ff00ff", "#00ffff", "#000000"];
  for (let i = 0; i < 12; i++) {
    brush.fill(cols[i % 7], 255);
    brush.beginShape(0);
    brush.vertex(i * 50, 0); brush.vertex(i * 50 + 50, 0); brush.vertex(i * 50 + 50, 600); brush.vertex(i * 50, 600);
    brush.endShape(true);
  }
}
