function setup() {
  createCanvas(600, 600, WEBGL);
  angleMode(DEGREES);
  noLoop();
}

function draw() {
  translate(-width / 2, -height / 2);
  background("#1b263b");
  brush.noStroke();
  brush.fillTexture(0.5, 0.6);
  brush.fill("#415a77", 120);
  brush.fillBleed(0.3);
  brush.rect(0, 0, 600, 380);
  brush.fill("#e0e1dd", 170);
  brush.fillBleed(0.1);
  brush.circle(440, 140, 55);
  brush.fill("#0d1b2a", 180);
  brush.beginShape(0.3);
  brush.vertex(0, 420); brush.vertex(150, 360); brush.vertex(300, 400);
  brush.vertex(450, 350); brush.vertex(600, 410); brush.vertex(600, 600); brush.vertex(0, 600);
  brush.endShape(true);
  brush.set("spray", "#ffffff", 1);
  for (let i = 0; i < 25; i++) brush.line(20 + i * 23, 30 + ((i * 37) % 200), 22 + i * 23, 32 + ((i * 37) % 200));
}
