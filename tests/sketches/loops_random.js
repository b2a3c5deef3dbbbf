// Published skeleton; positions from random() so the program depends on the seed.
async function setup() {
  createCanvas(600, 600, WEBGL);
  brush.scaleBrushes(1.5);
  angleMode(DEGREES);
  noLoop();
}

function draw() {
  translate(-width / 2, -height / 2);
  background("#fffceb");
  const palette = ["#264653", "#2a9d8f", "#e9c46a", "#f4a261", "#e76f51"];
  brush.noStroke();
  brush.fillBleed(0.25);
  brush.fillTexture(0.6, 0.3);
  for (let i = 0; i < 12; i++) {
    brush.fill(random(palette), 90 + floor(random(60)));
    brush.circle(random(50, 550), random(50, 550), 20 + random(40), 0.4);
  }
  const hills = [];
  for (let x = 0; x <= 600; x += 50) hills.push([x, 420 + 40 * sin(x * 0.9) + noise(x * 0.01) * 30]);
  brush.fill(color(46, 147, 60), 120);
  brush.beginShape(0.4);
  for (const [x, y] of hills) brush.vertex(x, y);
  brush.vertex(600, 600);
  brush.vertex(0, 600);
  brush.endShape(true);
}
