async function setup() {
  createCanvas(600, 600, WEBGL);
  brush.scaleBrushes(1.5);
  angleMode(DEGREES);
  noLoop();
}

function draw() {
  translate(-width / 2, -height / 2);
  background("#fffceb");
  randomSeed(726);

  brush.noStroke();
  const pal = ["#264653", "#2a9d8f", "#e9c46a", "#f4a261", "#e76f51"];
  for (let i = 0; i < 9; i++) {
    brush.fill(pal[i % 5], 90);
    brush.fillBleed(0.3);
    brush.fillTexture(0.6, 0.5);
    const a = i * 40, r = 140;
    brush.circle(300 + r * cos(a), 300 + r * sin(a), 70, 0.3);
  }
  brush.fill("#e9c46a", 110);
  brush.circle(300, 300, 60, 0.2);
}
