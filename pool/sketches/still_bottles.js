async function setup() {
  createCanvas(600, 600, WEBGL);
  brush.scaleBrushes(1.5);
  angleMode(DEGREES);
  noLoop();
}

function draw() {
  translate(-width / 2, -height / 2);
  background("#fffceb");
  randomSeed(605);

  brush.noStroke();
  brush.fill("#ece2d0", 90);
  brush.fillBleed(0.2);
  brush.rect(-10, 420, 620, 190);
  const b = [[170, "#4f7c6b", 250], [300, "#8a5a83", 200], [430, "#c2873a", 280]];
  for (const q of b) {
    brush.fill(q[1], 120);
    brush.fillBleed(0.12);
    brush.fillTexture(0.5, 0.6);
    brush.beginShape(0.4);
    brush.vertex(q[0] - 12, 440 - q[2]); brush.vertex(q[0] + 12, 440 - q[2]); brush.vertex(q[0] + 14, 440 - q[2] * 0.65);
    brush.vertex(q[0] + 45, 440 - q[2] * 0.5); brush.vertex(q[0] + 45, 440); brush.vertex(q[0] - 45, 440);
    brush.vertex(q[0] - 45, 440 - q[2] * 0.5); brush.vertex(q[0] - 14, 440 - q[2] * 0.65);
    brush.endShape(true);
    brush.fill("#ffffff", 120);
    brush.fillBleed(0.02);
    brush.rect(q[0] - 30, 440 - q[2] * 0.45, 8, q[2] * 0.35);
  }
  brush.hatchStyle("2H", "#8d8273", 0.7);
  brush.hatch(5, 20, {rand: 0.1});
  brush.rect(120, 445, 380, 30);
  brush.noHatch();
}
