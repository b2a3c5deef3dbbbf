async function setup() {
  createCanvas(600, 600, WEBGL);
  brush.scaleBrushes(1.5);
  angleMode(DEGREES);
  noLoop();
}

function draw() {
  translate(-width / 2, -height / 2);
  background("#fffceb");
  randomSeed(118);

  brush.noStroke();
  brush.fill("#2e7d4f", 140);
  brush.fillBleed(0.1);
  brush.fillTexture(0.5, 0.5);
  brush.arc(300, 260, 210, 0, 180);
  brush.beginShape(0.2);
  for (let a = 0; a <= 180; a += 15) brush.vertex(300 + 210 * cos(a), 260 + 210 * sin(a));
  brush.endShape(true);
  brush.fill("#e64a5a", 140);
  brush.fillBleed(0.2);
  brush.beginShape(0.2);
  for (let a = 0; a <= 180; a += 15) brush.vertex(300 + 185 * cos(a), 262 + 185 * sin(a));
  brush.endShape(true);
  brush.fill("#1e1a1a", 200);
  brush.fillBleed(0);
  for (let i = 0; i < 12; i++) {
    const a = random(20, 160), r = random(60, 150);
    brush.circle(300 + r * cos(a), 262 + r * sin(a), 5, 0.3);
  }
  brush.set("pen", "#1b4d33", 1);
  brush.line(90, 262, 510, 262);
  brush.noStroke();
}
